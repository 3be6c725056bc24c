// The Webhook authorizer: asks a remote service with a SubjectAccessReview (v1 or v1beta1)
// and caches its answers (allowed and not allowed for their own durations).
import { isPlainObject } from '../../apimachinery/types.js';
import { group } from '../../naming/index.js';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../types.js';
import { TtlCache, type WebhookClient } from '../webhook-client.js';

interface WebhookAuthorizerOptions {
  version: 'v1' | 'v1beta1';
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
}

export function subjectAccessReviewFor(attrs: AuthorizationAttributes, version: 'v1' | 'v1beta1'): Record<string, unknown> {
  const spec: Record<string, unknown> = { user: attrs.user.username };
  // v1beta1 named the groups field `group`.
  spec[version === 'v1' ? 'groups' : 'group'] = attrs.user.groups;
  if (attrs.user.uid) spec['uid'] = attrs.user.uid;
  if (attrs.user.extra && Object.keys(attrs.user.extra).length > 0) spec['extra'] = attrs.user.extra;
  if (attrs.isResourceRequest) {
    spec['resourceAttributes'] = {
      namespace: attrs.namespace,
      verb: attrs.verb,
      group: attrs.apiGroup,
      version: attrs.apiVersion,
      resource: attrs.resource,
      subresource: attrs.subresource,
      name: attrs.name,
    };
  } else {
    spec['nonResourceAttributes'] = { path: attrs.path, verb: attrs.verb };
  }
  return { apiVersion: `${group('authorization')}/${version}`, kind: 'SubjectAccessReview', spec };
}

export class WebhookAuthorizer implements Authorizer {
  private readonly cache = new TtlCache<AuthorizationResult>();

  constructor(
    private readonly client: Pick<WebhookClient, 'post'>,
    private readonly opts: WebhookAuthorizerOptions,
  ) {}

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    const review = subjectAccessReviewFor(attrs, this.opts.version);
    const key = JSON.stringify(review['spec']);
    const cached = this.cache.get(key);
    if (cached) return cached;
    let answer: Record<string, unknown>;
    try {
      answer = await this.client.post(review);
    } catch (e) {
      // Failures are no opinion: the next authorizer (or the final 403) decides.
      return { decision: 'NoOpinion', reason: `webhook authorizer: ${e instanceof Error ? e.message : String(e)}` };
    }
    const status = isPlainObject(answer['status']) ? answer['status'] : {};
    const reason = typeof status['reason'] === 'string' ? status['reason'] : '';
    let result: AuthorizationResult;
    if (status['allowed'] === true) result = { decision: 'Allow', reason };
    else if (status['denied'] === true) result = { decision: 'Deny', reason };
    else result = { decision: 'NoOpinion', reason };
    this.cache.set(key, result, result.decision === 'Allow' ? this.opts.authorizedTtlMs : this.opts.unauthorizedTtlMs);
    return result;
  }
}
