// The review APIs as create-only virtual stores: access reviews ask the server's own
// authorizer chain, rules reviews enumerate the caller's rules, token reviews run the
// token authenticators, and self-subject reviews return the caller's identity.
import { badRequest, internalError, invalid, invalidField, type FieldError } from '../../apimachinery/errors.js';
import { apiVersionOf, isPlainObject, type KubeObject, type UserInfo } from '../../apimachinery/types.js';
import type { CreateOptions, RESTStore, RequestContext, ResourceDefinition } from '../../rest/index.js';
import type { PolicyRule } from '../rbac/rules.js';
import type { AuthenticationResult, AuthorizationAttributes, Authorizer } from '../types.js';
import { setOwn } from '../../apimachinery/own.js';
import { reviewDefinitions } from './definitions.js';

export interface RulesResult {
  resourceRules: PolicyRule[];
  nonResourceRules: PolicyRule[];
  incomplete: boolean;
  errors: string[];
}

type RulesResolver = (user: UserInfo, namespace: string) => RulesResult;

/** Authenticates a token for audiences; null when no token authenticator accepts it. */
type TokenReviewer = (token: string, audiences: string[]) => Promise<AuthenticationResult | null>;

interface ReviewDeps {
  authorizer: Authorizer;
  rules: RulesResolver;
  reviewToken: TokenReviewer;
  apiAudiences: () => string[];
}

function typed(def: ResourceDefinition, obj: KubeObject, status: Record<string, unknown>): KubeObject {
  const meta = { ...(isPlainObject(obj.metadata) ? obj.metadata : {}), creationTimestamp: null };
  return { ...obj, apiVersion: apiVersionOf(def), kind: def.kind, metadata: meta, status };
}

/** Reviews carry no metadata but (for local reviews) a namespace. */
function metadataErrors(obj: KubeObject, allowNamespace: boolean): FieldError[] {
  const meta = isPlainObject(obj.metadata) ? obj.metadata : {};
  const meaningful = Object.entries(meta).filter(([k, v]) => {
    if (k === 'managedFields' || k === 'creationTimestamp') return false;
    if (k === 'namespace' && allowNamespace) return false;
    return v !== undefined && v !== null && v !== '' && !(isPlainObject(v) && Object.keys(v).length === 0);
  });
  if (meaningful.length === 0) return [];
  return [invalidField('metadata', meta, allowNamespace ? 'must be empty except for namespace' : 'must be empty')];
}

function spec(obj: KubeObject): Record<string, unknown> {
  return isPlainObject(obj['spec']) ? obj['spec'] : {};
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function extraOf(v: unknown): Record<string, string[]> | undefined {
  if (!isPlainObject(v)) return undefined;
  const out: Record<string, string[]> = {};
  for (const [k, vs] of Object.entries(v)) setOwn(out, k, strings(vs));
  return out;
}

function userInfoJson(u: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = { username: u.username };
  if (u.uid) out['uid'] = u.uid;
  if (u.groups.length > 0) out['groups'] = u.groups;
  if (u.extra && Object.keys(u.extra).length > 0) out['extra'] = u.extra;
  return out;
}

/** Access review attributes; the errors are those of a malformed spec. */
function accessAttributes(s: Record<string, unknown>, user: UserInfo): { attrs?: AuthorizationAttributes; errors: FieldError[] } {
  const ra = s['resourceAttributes'];
  const nra = s['nonResourceAttributes'];
  const errors: FieldError[] = [];
  if (ra !== undefined && ra !== null && nra !== undefined && nra !== null) {
    errors.push(invalidField('spec.nonResourceAttributes', nra, 'cannot be specified in combination with resourceAttributes'));
  }
  if ((ra === undefined || ra === null) && (nra === undefined || nra === null)) {
    errors.push(invalidField('spec.resourceAttributes', null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  }
  if (errors.length > 0) return { errors };
  if (isPlainObject(ra)) {
    return {
      errors,
      attrs: {
        user,
        verb: str(ra['verb']),
        isResourceRequest: true,
        path: '',
        apiGroup: str(ra['group']),
        apiVersion: str(ra['version']),
        resource: str(ra['resource']),
        subresource: str(ra['subresource']),
        namespace: str(ra['namespace']),
        name: str(ra['name']),
      },
    };
  }
  const n = isPlainObject(nra) ? nra : {};
  return {
    errors,
    attrs: { user, verb: str(n['verb']), isResourceRequest: false, path: str(n['path']), apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' },
  };
}

async function decide(authorizer: Authorizer, attrs: AuthorizationAttributes): Promise<Record<string, unknown>> {
  try {
    const r = await authorizer.authorize(attrs);
    const status: Record<string, unknown> = { allowed: r.decision === 'Allow' };
    if (r.decision === 'Deny') status['denied'] = true;
    if (r.reason) status['reason'] = r.reason;
    return status;
  } catch (e) {
    return { allowed: false, evaluationError: e instanceof Error ? e.message : String(e) };
  }
}

function reviewStore(definition: ResourceDefinition, run: (ctx: RequestContext, namespace: string, obj: KubeObject) => Promise<KubeObject>): RESTStore {
  return {
    definition,
    async create(ctx: RequestContext, namespace: string, obj: KubeObject, opts: CreateOptions) {
      if (opts.validate) await opts.validate(obj, undefined);
      return run(ctx, namespace, obj);
    },
  };
}

export function reviewStores(deps: ReviewDeps): RESTStore[] {
  const d = reviewDefinitions();
  const gk = (def: ResourceDefinition) => ({ group: def.group, kind: def.kind });
  const name = (obj: KubeObject) => obj.metadata?.name ?? '';

  const selfSubjectAccessReview = reviewStore(d['selfSubjectAccessReview']!, async (ctx, _ns, obj) => {
    const def = d['selfSubjectAccessReview']!;
    const { attrs, errors } = accessAttributes(spec(obj), ctx.user);
    errors.push(...metadataErrors(obj, false));
    if (!attrs || errors.length > 0) throw invalid(gk(def), name(obj), errors);
    return typed(def, obj, await decide(deps.authorizer, attrs));
  });

  const subjectUser = (s: Record<string, unknown>): UserInfo => {
    const u: UserInfo = { username: str(s['user']), groups: strings(s['groups']) };
    if (str(s['uid'])) u.uid = str(s['uid']);
    const extra = extraOf(s['extra']);
    if (extra) u.extra = extra;
    return u;
  };

  const subjectAccessReview = reviewStore(d['subjectAccessReview']!, async (_ctx, _ns, obj) => {
    const def = d['subjectAccessReview']!;
    const s = spec(obj);
    const user = subjectUser(s);
    const { attrs, errors } = accessAttributes(s, user);
    if (!user.username && user.groups.length === 0) errors.push(invalidField('spec.user', user.username, 'at least one of user or group must be specified'));
    errors.push(...metadataErrors(obj, false));
    if (!attrs || errors.length > 0) throw invalid(gk(def), name(obj), errors);
    return typed(def, obj, await decide(deps.authorizer, attrs));
  });

  const localSubjectAccessReview = reviewStore(d['localSubjectAccessReview']!, async (_ctx, namespace, obj) => {
    const def = d['localSubjectAccessReview']!;
    if (!namespace) throw badRequest('namespace is required on this type');
    const s = spec(obj);
    const metaNs = obj.metadata?.namespace ?? '';
    if (metaNs && metaNs !== namespace) throw badRequest(`the namespace of the provided object does not match the namespace sent on the request`);
    const user = subjectUser(s);
    const { attrs, errors } = accessAttributes(s, user);
    if (!user.username && user.groups.length === 0) errors.push(invalidField('spec.user', user.username, 'at least one of user or group must be specified'));
    errors.push(...metadataErrors(obj, true));
    if (s['nonResourceAttributes']) errors.push(invalidField('spec.nonResourceAttributes', s['nonResourceAttributes'], 'disallowed on this kind of request'));
    if (attrs && attrs.isResourceRequest && attrs.namespace !== namespace) {
      errors.push(invalidField('spec.resourceAttributes.namespace', attrs.namespace, 'must match metadata.namespace'));
    }
    if (!attrs || errors.length > 0) throw invalid(gk(def), name(obj), errors);
    const out = typed(def, obj, await decide(deps.authorizer, attrs));
    out.metadata = { ...out.metadata, namespace };
    return out;
  });

  const selfSubjectRulesReview = reviewStore(d['selfSubjectRulesReview']!, async (ctx, _ns, obj) => {
    const def = d['selfSubjectRulesReview']!;
    const namespace = str(spec(obj)['namespace']);
    const r = deps.rules(ctx.user, namespace);
    const status: Record<string, unknown> = {
      resourceRules: r.resourceRules.map((rule) => ({
        verbs: rule.verbs,
        apiGroups: rule.apiGroups ?? [],
        resources: rule.resources ?? [],
        ...(rule.resourceNames && rule.resourceNames.length > 0 ? { resourceNames: rule.resourceNames } : {}),
      })),
      nonResourceRules: r.nonResourceRules.map((rule) => ({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs ?? [] })),
      incomplete: r.incomplete,
    };
    if (r.errors.length > 0) status['evaluationError'] = r.errors.join(', ');
    return typed(def, obj, status);
  });

  const tokenReview = (def: ResourceDefinition) =>
    reviewStore(def, async (_ctx, _ns, obj) => {
      const s = spec(obj);
      const token = str(s['token']);
      if (!token) throw badRequest('token is required for TokenReview in authentication');
      const requested = strings(s['audiences']);
      const audiences = requested.length > 0 ? requested : deps.apiAudiences();
      let result: AuthenticationResult | null = null;
      try {
        result = await deps.reviewToken(token, audiences);
      } catch {
        result = null;
      }
      // The error names no detail of the token or of why it failed.
      if (!result) return typed(def, obj, { user: {}, error: 'invalid bearer token' });
      // Every token authenticator answers the audiences it vouched for; one that vouched for
      // none of those asked is a fault, as kube-apiserver treats it (never an authentication).
      const vouched = result.audiences ?? [];
      if (!vouched.some((a) => audiences.includes(a))) throw internalError(new Error('error validating audiences'));
      return typed(def, obj, { authenticated: true, user: userInfoJson(result.user), audiences: vouched });
    });

  const selfSubjectReview = (def: ResourceDefinition) =>
    reviewStore(def, async (ctx, _ns, obj) => typed(def, obj, { userInfo: userInfoJson(ctx.user) }));

  return [
    selfSubjectAccessReview,
    subjectAccessReview,
    localSubjectAccessReview,
    selfSubjectRulesReview,
    tokenReview(d['tokenReviewV1']!),
    selfSubjectReview(d['selfSubjectReviewV1beta1']!),
    selfSubjectReview(d['selfSubjectReviewV1alpha1']!),
  ];
}
