// Escalation prevention for writes to roles and bindings: a user may grant only what it
// holds itself, unless it has `escalate` (roles) or `bind` (bindings) on the role, or is in
// the superuser group. Installed as a RESTStore wrapper around the four RBAC stores.
import { forbidden } from '../../apimachinery/errors.js';
import type { KubeObject, UserInfo } from '../../apimachinery/types.js';
import { group } from '../../naming/index.js';
import type { CreateOptions, RESTStore, RequestContext, UpdateOptions, ValidateObjectFunc } from '../../rest/index.js';
import type { Authorizer } from '../types.js';
import { rulesFor, rulesOf, SUPERUSER_GROUP, type RBACSource } from './authorizer.js';
import { compactRuleString, uncoveredRules, type PolicyRule, type RoleRef } from './rules.js';
import { aggregationSelectors } from './aggregation.js';
import { deepEqual } from '../../apimachinery/equality.js';

export type RBACResource = 'roles' | 'clusterroles' | 'rolebindings' | 'clusterrolebindings';

export class EscalationCheck {
  constructor(
    private readonly source: RBACSource,
    private readonly authorizer: Authorizer,
  ) {}

  private async allowedVerb(user: UserInfo, verb: string, resource: string, namespace: string, name: string): Promise<boolean> {
    const r = await this.authorizer.authorize({
      user,
      verb,
      isResourceRequest: true,
      path: '',
      apiGroup: group('rbac.authorization'),
      apiVersion: 'v1',
      resource,
      subresource: '',
      namespace,
      name,
    });
    return r.decision === 'Allow';
  }

  private notHeld(resource: RBACResource, name: string, user: UserInfo, namespace: string, missing: PolicyRule[], errors: string[]): Error {
    const groups = user.groups.map((g) => JSON.stringify(g)).join(' ');
    let msg = `user ${JSON.stringify(user.username)} (groups=[${groups}]) is attempting to grant RBAC permissions not currently held:\n${missing.map(compactRuleString).join('\n')}`;
    if (errors.length > 0) msg += `; resolution errors: [${errors.join(', ')}]`;
    void namespace;
    return forbidden({ group: group('rbac.authorization'), resource }, name, msg);
  }

  /**
   * Throws ApiError 403 when the write would escalate the user's permissions. `obj` is the
   * object as it will be stored (after any patch or apply), `old` the stored one (undefined
   * on create, including create through update or apply).
   */
  async check(user: UserInfo, resource: RBACResource, namespace: string, obj: KubeObject, old: KubeObject | undefined): Promise<void> {
    if (user.groups.includes(SUPERUSER_GROUP)) return;
    // As in Kubernetes, only an update that leaves everything but the garbage collector's
    // fields alone is exempt: a label may aggregate a role into another, and any other
    // change of a binding (its subjects) changes who holds the role.
    if (old && onlyGarbageCollectionFieldsChange(obj, old)) return;
    const name = obj.metadata?.name ?? '';
    if (resource === 'roles' || resource === 'clusterroles') {
      if (await this.allowedVerb(user, 'escalate', resource, namespace, name)) return;
      const own = rulesFor(this.source, user, namespace);
      const missing = uncoveredRules(own.rules, rulesOf(obj));
      if (missing.length > 0) throw this.notHeld(resource, name, user, namespace, missing, own.errors);
      // An aggregation rule can gather any permission, and dropping one stops the tightening
      // of what it gathered: writing either takes holding everything.
      if (resource === 'clusterroles' && (hasAggregationRule(obj) || (old !== undefined && hasAggregationRule(old)))) {
        if (uncoveredRules(own.rules, FULL_AUTHORITY).length > 0) {
          throw forbidden({ group: group('rbac.authorization'), resource }, name, 'must have cluster-admin privileges to use the aggregationRule');
        }
      }
      return;
    }
    const ref = obj['roleRef'] as RoleRef | undefined;
    if (!ref || typeof ref !== 'object') return; // validation reports the missing roleRef
    const roleResource = ref.kind === 'ClusterRole' ? 'clusterroles' : 'roles';
    if (await this.allowedVerb(user, 'bind', roleResource, namespace, ref.name)) return;
    const role = ref.kind === 'ClusterRole' ? this.source.getClusterRole(ref.name) : this.source.getRole(namespace, ref.name);
    if (!role) {
      throw forbidden({ group: group('rbac.authorization'), resource }, name, `${ref.kind.toLowerCase()}.${group('rbac.authorization')} "${ref.name}" not found`);
    }
    const own = rulesFor(this.source, user, namespace);
    const missing = uncoveredRules(own.rules, rulesOf(role));
    if (missing.length > 0) throw this.notHeld(resource, name, user, namespace, missing, own.errors);
  }
}

const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

function hasAggregationRule(role: KubeObject): boolean {
  return (aggregationSelectors(role) ?? []).length > 0;
}

// Metadata an update may change without review: what the garbage collector maintains, and
// the bookkeeping the server keeps itself.
const EXEMPT_METADATA = new Set(['ownerReferences', 'finalizers', 'managedFields', 'resourceVersion', 'selfLink']);

/**
 * Go's semantic equality over JSON values: a missing field, null, an empty list and an empty
 * map are the same. Keys are copied as own properties, whatever their name.
 */
function normalized(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalized);
  if (v === null || typeof v !== 'object') return v;
  const entries: [string, unknown][] = [];
  for (const [k, x] of Object.entries(v)) {
    const n = normalized(x);
    if (n === undefined || n === null) continue;
    if (Array.isArray(n) && n.length === 0) continue;
    if (typeof n === 'object' && !Array.isArray(n) && Object.keys(n as object).length === 0) continue;
    entries.push([k, n]);
  }
  return Object.fromEntries(entries);
}

function withoutExemptMetadata(obj: KubeObject): unknown {
  const meta = Object.fromEntries(Object.entries(obj.metadata ?? {}).filter(([k]) => !EXEMPT_METADATA.has(k)));
  return normalized({ ...obj, metadata: meta });
}

/** Whether `obj` differs from `old` only in owner references, finalizers and server bookkeeping. */
function onlyGarbageCollectionFieldsChange(obj: KubeObject, old: KubeObject): boolean {
  return deepEqual(withoutExemptMetadata(obj), withoutExemptMetadata(old));
}

function chain(first: ValidateObjectFunc, then: ValidateObjectFunc | undefined): ValidateObjectFunc {
  return async (obj, old) => {
    await first(obj, old);
    if (then) await then(obj, old);
  };
}

/**
 * Wraps an RBAC store so that create and update run the escalation check after validation,
 * on the final object: every write path (create, update, patches, apply, dry runs, create
 * through update) reaches the store through these two verbs.
 */
export function withEscalationCheck(store: RESTStore, resource: RBACResource, check: EscalationCheck): RESTStore {
  // Every verb delegates, bound to the original store (its state stays in one place).
  const wrapped: RESTStore = { definition: store.definition };
  if (store.get) wrapped.get = store.get.bind(store);
  if (store.list) wrapped.list = store.list.bind(store);
  if (store.watch) wrapped.watch = store.watch.bind(store);
  if (store.delete) wrapped.delete = store.delete.bind(store);
  if (store.deleteCollection) wrapped.deleteCollection = store.deleteCollection.bind(store);
  if (store.create) {
    const create = store.create.bind(store);
    wrapped.create = (ctx: RequestContext, namespace: string, obj: KubeObject, opts: CreateOptions) =>
      create(ctx, namespace, obj, { ...opts, validate: chain((o, old) => check.check(ctx.user, resource, namespace, o, old), opts.validate) });
  }
  if (store.update) {
    const update = store.update.bind(store);
    // The RBAC kinds have no subresources: every write of them comes through here.
    wrapped.update = (ctx, namespace, name, objInfo, opts: UpdateOptions) =>
      update(ctx, namespace, name, objInfo, { ...opts, validate: chain((o, old) => check.check(ctx.user, resource, namespace, o, old), opts.validate) });
  }
  return wrapped;
}
