// Authorization: the acting user may do the RequestInfo's verb on what it addresses, or 403.
import type { UserInfo } from '../../apimachinery/types.js';
import { forbiddenError } from '../../auth/authz/union.js';
import type { AuthorizationAttributes, Authorizer } from '../../auth/types.js';
import type { RequestInfo } from '../request-info.js';
import { required, type Filter } from './chain.js';

/** Throws the Forbidden Status unless the authorizer allows `info` for `user`. */
export async function authorize(authorizer: Authorizer, info: RequestInfo, user: UserInfo): Promise<void> {
  const attrs: AuthorizationAttributes = {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
  };
  const result = await authorizer.authorize(attrs);
  if (result.decision !== 'Allow') throw forbiddenError(attrs, result.reason);
}

export function withAuthorization(authorizer: Authorizer): Filter {
  return (next) => async (scope) => {
    await authorize(authorizer, required(scope.info, 'RequestInfo'), required(scope.user, 'the user'));
    // The client went away (an HTTP/2 reset) while it was authorized: nothing to do.
    if (scope.abort.signal.aborted) return;
    return next(scope);
  };
}
