// Creates and reconciles the default policy: missing objects are created; existing ones
// marked for auto-update get missing rules, labels, annotations and subjects added (nothing
// is removed, so operators' additions survive); autoupdate=false leaves an object alone.
import { isApiError } from '../../apimachinery/errors.js';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import type { ApiClient } from '../../client/types.js';
import { rulesOf } from './authorizer.js';
import { autoupdateAnnotation } from './bootstrap-policy.js';
import { rbacResource } from './cache.js';
import { uncoveredRules, type Subject } from './rules.js';
import { aggregationSelectors } from './aggregation.js';
import { deepEqual } from '../../apimachinery/equality.js';

function mergeMap(existing: Record<string, string> | undefined, wanted: Record<string, string> | undefined): Record<string, string> {
  return { ...(wanted ?? {}), ...(existing ?? {}) };
}

/** The reconciled role, or undefined when the existing one needs no change. */
export function reconcileRole(existing: KubeObject, wanted: KubeObject): KubeObject | undefined {
  if (existing.metadata?.annotations?.[autoupdateAnnotation()] === 'false') return undefined;
  const out: KubeObject = structuredClone(existing);
  out.metadata = {
    ...out.metadata,
    labels: mergeMap(existing.metadata?.labels, wanted.metadata?.labels),
    annotations: mergeMap(existing.metadata?.annotations, wanted.metadata?.annotations),
  };
  const wantedSelectors = aggregationSelectors(wanted);
  if (wantedSelectors) {
    // Aggregated roles: selectors are unioned; their rules belong to the aggregation controller.
    const have = aggregationSelectors(existing) ?? [];
    const merged = [...have, ...wantedSelectors.filter((s) => !have.some((h) => deepEqual(h, s)))];
    out['aggregationRule'] = { clusterRoleSelectors: merged };
  } else {
    const missing = uncoveredRules(rulesOf(existing), rulesOf(wanted));
    if (missing.length > 0) out['rules'] = [...rulesOf(existing), ...rulesOf(wanted).filter((r) => uncoveredRules(rulesOf(existing), [r]).length > 0)];
  }
  return deepEqual(out, existing) ? undefined : out;
}

/** The reconciled binding; `recreate` when its roleRef differs (roleRef is immutable). */
export function reconcileBinding(existing: KubeObject, wanted: KubeObject): { object: KubeObject; recreate: boolean } | undefined {
  if (existing.metadata?.annotations?.[autoupdateAnnotation()] === 'false') return undefined;
  if (!deepEqual(existing['roleRef'], wanted['roleRef'])) return { object: wanted, recreate: true };
  const out: KubeObject = structuredClone(existing);
  out.metadata = {
    ...out.metadata,
    labels: mergeMap(existing.metadata?.labels, wanted.metadata?.labels),
    annotations: mergeMap(existing.metadata?.annotations, wanted.metadata?.annotations),
  };
  const have = (Array.isArray(existing['subjects']) ? existing['subjects'] : []) as Subject[];
  const want = (Array.isArray(wanted['subjects']) ? wanted['subjects'] : []) as Subject[];
  const same = (a: Subject, b: Subject) => a.kind === b.kind && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '');
  out['subjects'] = [...have, ...want.filter((w) => !have.some((h) => same(h, w)))];
  return deepEqual(out, existing) ? undefined : { object: out, recreate: false };
}

const keyOf = (o: KubeObject): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

/** Every object of `r` by namespace and name: one list instead of a read per default object. */
async function existingObjects(client: ApiClient, r: GroupVersionResource): Promise<Map<string, KubeObject>> {
  const list = await client.list(r, '');
  return new Map(list.items.map((o) => [keyOf(o), o]));
}

/** The object, or undefined when it does not exist. */
async function getIfExists(client: ApiClient, r: GroupVersionResource, ns: string, name: string): Promise<KubeObject | undefined> {
  try {
    return await client.get(r, ns, name);
  } catch (e) {
    if (isApiError(e) && e.code === 404) return undefined;
    throw e;
  }
}

async function ensure(
  client: ApiClient,
  r: GroupVersionResource,
  wanted: KubeObject,
  reconcile: (existing: KubeObject, wanted: KubeObject) => { object: KubeObject; recreate: boolean } | undefined,
  /** What a list just read, for the first attempt; later attempts (after a conflict) read afresh. */
  known?: Map<string, KubeObject>,
): Promise<void> {
  const ns = wanted.metadata?.namespace ?? '';
  const name = wanted.metadata?.name ?? '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const existing = attempt === 0 && known ? known.get(keyOf(wanted)) : await getIfExists(client, r, ns, name);
    try {
      if (!existing) {
        await client.create(r, ns, structuredClone(wanted));
        return;
      }
      const change = reconcile(existing, wanted);
      if (!change) return;
      if (change.recreate) {
        await client.delete(r, ns, name);
        await client.create(r, ns, structuredClone(change.object));
      } else {
        await client.update(r, ns, change.object);
      }
      return;
    } catch (e) {
      if (isApiError(e) && e.code === 409) continue;
      throw e;
    }
  }
}

interface DefaultPolicy {
  clusterRoles: KubeObject[];
  clusterRoleBindings: KubeObject[];
  roles: KubeObject[];
  roleBindings: KubeObject[];
}

/**
 * Reconciles cluster-scoped objects now (the server must not serve without them) and
 * returns the namespaced ones that failed (their namespace may not exist yet) to retry.
 */
export async function reconcilePolicy(client: ApiClient, policy: DefaultPolicy): Promise<KubeObject[]> {
  const roleChange = (e: KubeObject, w: KubeObject) => {
    const o = reconcileRole(e, w);
    return o ? { object: o, recreate: false } : undefined;
  };
  const known = async (resource: Parameters<typeof rbacResource>[0]): Promise<Map<string, KubeObject>> => existingObjects(client, rbacResource(resource));
  // The objects of one kind are written together: the store commits concurrent writes as
  // one transaction, where one write after another would wait for a commit each.
  const clusterRoles = await known('clusterroles');
  await Promise.all(policy.clusterRoles.map((o) => ensure(client, rbacResource('clusterroles'), o, roleChange, clusterRoles)));
  const clusterRoleBindings = await known('clusterrolebindings');
  await Promise.all(policy.clusterRoleBindings.map((o) => ensure(client, rbacResource('clusterrolebindings'), o, reconcileBinding, clusterRoleBindings)));
  const failed: KubeObject[] = [];
  const roles = await known('roles');
  await Promise.all(policy.roles.map((o) => ensure(client, rbacResource('roles'), o, roleChange, roles).catch(() => failed.push(o))));
  const roleBindings = await known('rolebindings');
  await Promise.all(policy.roleBindings.map((o) => ensure(client, rbacResource('rolebindings'), o, reconcileBinding, roleBindings).catch(() => failed.push(o))));
  return failed;
}

/** Retries namespaced defaults until they land or `signal` aborts. */
export async function reconcileNamespacedUntilDone(client: ApiClient, pending: KubeObject[], signal: AbortSignal, intervalMs = 1000): Promise<void> {
  let left = pending;
  while (left.length > 0 && !signal.aborted) {
    await new Promise((r) => setTimeout(r, intervalMs).unref());
    const next: KubeObject[] = [];
    for (const o of left) {
      const r = rbacResource(o.kind === 'Role' ? 'roles' : 'rolebindings');
      const change =
        o.kind === 'Role'
          ? (e: KubeObject, w: KubeObject) => {
              const x = reconcileRole(e, w);
              return x ? { object: x, recreate: false } : undefined;
            }
          : reconcileBinding;
      await ensure(client, r, o, change).catch(() => next.push(o));
    }
    left = next;
  }
}
