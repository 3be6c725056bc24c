// Impersonation: Impersonate-* headers make the request act as another user, when the
// authenticated user may impersonate them (403 otherwise, 400 for malformed headers).
import type { UserInfo } from '../../apimachinery/types.js';
import type { AuthenticationRequest } from '../../auth/types.js';
import { required, type Filter } from './chain.js';

export type Impersonator = (headers: AuthenticationRequest['headers'], user: UserInfo) => Promise<UserInfo>;

export function withImpersonation(impersonate: Impersonator | undefined): Filter {
  if (!impersonate) return (next) => next;
  return (next) => (scope) => {
    const headers = required(scope.headers, 'the request headers');
    // Most requests impersonate nobody: nothing to check, nothing to wait for.
    if (!Object.keys(headers).some((name) => name.toLowerCase().startsWith('impersonate-'))) return next(scope);
    return impersonate(headers, required(scope.authenticatedUser, 'the user')).then((user) => {
      scope.user = user;
      return next(scope);
    });
  };
}
