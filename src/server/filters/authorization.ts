// Authorization: the acting user may do the RequestInfo's verb on what it addresses, or 403.
// The decision and the authorizer's reason are audit annotations, as kube-apiserver records them.
import type { AuditAnnotations } from '../../apimachinery/audit.js';
import type { UserInfo } from '../../apimachinery/types.js';
import { forbiddenError } from '../../auth/authz/union.js';
import type { AuthorizationAttributes, Authorizer } from '../../auth/types.js';
import { domainKey } from '../../naming/index.js';
import { requestAttributes, type RequestInfo } from '../request-info.js';
import { required, type Filter } from './chain.js';

/** Throws the Forbidden Status unless the authorizer allows `info` for `user`. */
export async function authorize(authorizer: Authorizer, info: RequestInfo, user: UserInfo, audit?: AuditAnnotations): Promise<void> {
  const attrs: AuthorizationAttributes = { user, ...requestAttributes(info) };
  const result = await authorizer.authorize(attrs);
  if (audit) {
    audit.add(domainKey('decision', 'authorization'), result.decision === 'Allow' ? 'allow' : 'forbid');
    audit.add(domainKey('reason', 'authorization'), result.reason);
  }
  if (result.decision !== 'Allow') throw forbiddenError(attrs, result.reason);
}

export function withAuthorization(authorizer: Authorizer): Filter {
  return (next) => async (scope) => {
    await authorize(authorizer, required(scope.info, 'RequestInfo'), required(scope.user, 'the user'), scope.audit);
    // The client went away (an HTTP/2 reset) while it was authorized: nothing to do.
    if (scope.abort.aborted) return;
    return next(scope);
  };
}
