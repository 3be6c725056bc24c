// Impersonation: Impersonate-* headers make the request act as another user, when the
// authenticated user may impersonate them (403 otherwise, 400 for malformed headers).
import type { UserInfo } from '../../apimachinery/types.js';
import type { AuthenticationRequest } from '../../auth/types.js';
import { required, type Filter } from './chain.js';

export type Impersonator = (headers: AuthenticationRequest['headers'], user: UserInfo) => Promise<UserInfo>;

export function withImpersonation(impersonate: Impersonator | undefined): Filter {
  return (next) => async (scope) => {
    if (impersonate) scope.user = await impersonate(required(scope.headers, 'the request headers'), required(scope.authenticatedUser, 'the user'));
    return next(scope);
  };
}
