// Escalation prevention for writes to roles and bindings: a user may grant only what it
// holds itself, unless it has `escalate` (roles) or `bind` (bindings) on the role, or is in
// the superuser group. Installed as a RESTStore wrapper around the four RBAC stores.
import { isDeepStrictEqual } from 'node:util';
import { forbidden } from '../../apimachinery/errors.js';
import type { KubeObject, UserInfo } from '../../apimachinery/types.js';
import { group } from '../../naming/index.js';
import type { CreateOptions, RESTStore, RequestContext, UpdateOptions, ValidateObjectFunc } from '../../registry/types.js';
import type { Authorizer } from '../types.js';
import { rulesFor, rulesOf, SUPERUSER_GROUP, type RBACSource } from './authorizer.js';
import { compactRuleString, uncoveredRules, type PolicyRule, type RoleRef } from './rules.js';
import { aggregationSelectors } from './aggregation.js';

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

  /** Throws ApiError 403 when the write would escalate the user's permissions. */
  async check(user: UserInfo, resource: RBACResource, namespace: string, obj: KubeObject, old: KubeObject | undefined): Promise<void> {
    if (user.groups.includes(SUPERUSER_GROUP)) return;
    const name = obj.metadata?.name ?? '';
    if (resource === 'roles' || resource === 'clusterroles') {
      const unchanged = old && isDeepStrictEqual(rulesOf(old), rulesOf(obj)) && isDeepStrictEqual(old['aggregationRule'], obj['aggregationRule']);
      if (unchanged) return;
      if (await this.allowedVerb(user, 'escalate', resource, namespace, name)) return;
      const own = rulesFor(this.source, user, namespace);
      const wanted: PolicyRule[] = [...rulesOf(obj)];
      // Writing an aggregation rule can gather any permission: it takes holding them all.
      if (resource === 'clusterroles' && aggregationSelectors(obj) && !isDeepStrictEqual(old?.['aggregationRule'], obj['aggregationRule'])) {
        wanted.push({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] });
      }
      const missing = uncoveredRules(own.rules, wanted);
      if (missing.length > 0) throw this.notHeld(resource, name, user, namespace, missing, own.errors);
      return;
    }
    const ref = obj['roleRef'] as RoleRef | undefined;
    if (!ref || typeof ref !== 'object') return; // validation reports the missing roleRef
    if (old && isDeepStrictEqual(old['roleRef'], ref)) return;
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

function chain(first: ValidateObjectFunc, then: ValidateObjectFunc | undefined): ValidateObjectFunc {
  return async (obj, old) => {
    await first(obj, old);
    if (then) await then(obj, old);
  };
}

/** Wraps an RBAC store so that create and update run the escalation check after validation. */
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
    wrapped.create = (ctx: RequestContext, namespace: string, obj: KubeObject, opts: CreateOptions, name?: string, sub?: string) =>
      create(ctx, namespace, obj, { ...opts, validate: chain((o, old) => check.check(ctx.user, resource, namespace, o, old), opts.validate) }, name, sub);
  }
  if (store.update) {
    const update = store.update.bind(store);
    wrapped.update = (ctx, namespace, name, objInfo, opts: UpdateOptions, sub) =>
      sub
        ? update(ctx, namespace, name, objInfo, opts, sub)
        : update(ctx, namespace, name, objInfo, { ...opts, validate: chain((o, old) => check.check(ctx.user, resource, namespace, o, old), opts.validate) }, sub);
  }
  return wrapped;
}
