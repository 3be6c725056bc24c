// Asking the server's authorizers whether a user may do something, from inside admission:
// a SubjectAccessReview through the privileged client, as the plugins that check rights do.
import { isPlainObject, type UserInfo } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';
import { group } from '../naming/index.js';

export interface ResourceAccess {
  verb: string;
  namespace: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  name: string;
}

export interface AccessDecision {
  allowed: boolean;
  reason: string;
  /** The authorizer's error text, if it had one (Go prints `<nil>` otherwise). */
  error?: string;
}

/** Asks whether a user may do something; the server's authorizers answer. */
export type AccessAuthorizer = (user: UserInfo, access: ResourceAccess) => Promise<AccessDecision>;

/** An AccessAuthorizer that posts a SubjectAccessReview through the (privileged) client. */
export function subjectAccessReviewAccess(client: ApiClient): AccessAuthorizer {
  const reviews = { group: group('authorization'), version: 'v1', resource: 'subjectaccessreviews' };
  return async (user, access) => {
    const review = await client.create(reviews, '', {
      apiVersion: `${group('authorization')}/v1`,
      kind: 'SubjectAccessReview',
      spec: {
        user: user.username,
        groups: user.groups ?? [],
        ...(user.uid ? { uid: user.uid } : {}),
        ...(user.extra ? { extra: user.extra } : {}),
        resourceAttributes: access,
      },
    });
    const status = isPlainObject(review.status) ? review.status : {};
    return {
      allowed: status.allowed === true,
      reason: typeof status.reason === 'string' ? status.reason : '',
      ...(typeof status.evaluationError === 'string' && status.evaluationError !== '' ? { error: status.evaluationError } : {}),
    };
  };
}

