// The authorizer chain of --authorization-mode: the first module that allows or denies
// decides; when none has an opinion the request is forbidden.
import { ApiError, forbidden, forbiddenPath } from '../../apimachinery/errors.js';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../types.js';

export class UnionAuthorizer implements Authorizer {
  constructor(private readonly authorizers: Authorizer[]) {}

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    const reasons: string[] = [];
    for (const a of this.authorizers) {
      const r = await a.authorize(attrs);
      if (r.decision !== 'NoOpinion') return r;
      if (r.reason) reasons.push(r.reason);
    }
    return { decision: 'NoOpinion', reason: reasons.join('\n') };
  }
}

export const alwaysAllow: Authorizer = {
  authorize: async () => ({ decision: 'Allow', reason: '' }),
};

export const alwaysDeny: Authorizer = {
  authorize: async () => ({ decision: 'Deny', reason: 'Everything is forbidden.' }),
};

/** `User "x" cannot list resource "pods" in API group "" in the namespace "default"`. */
export function forbiddenMessage(attrs: AuthorizationAttributes): string {
  const user = JSON.stringify(attrs.user.username);
  if (!attrs.isResourceRequest) return `User ${user} cannot ${attrs.verb} path ${JSON.stringify(attrs.path)}`;
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const where = attrs.namespace ? `in the namespace ${JSON.stringify(attrs.namespace)}` : 'at the cluster scope';
  return `User ${user} cannot ${attrs.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(attrs.apiGroup)} ${where}`;
}

/** The 403 a request gets when the chain did not allow it, with the authorizers' reason. */
export function forbiddenError(attrs: AuthorizationAttributes, reason: string): ApiError {
  const message = reason ? `${forbiddenMessage(attrs)}: ${reason}` : forbiddenMessage(attrs);
  if (!attrs.isResourceRequest) return forbiddenPath(message);
  return forbidden({ group: attrs.apiGroup, resource: attrs.resource }, attrs.name, message);
}
