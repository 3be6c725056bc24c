// Start-up of the RBAC machinery: the default policy, the watch-fed cache, the aggregation
// controller, and the escalation checks on the four RBAC stores of the resource table.
import type { ApiClient } from '../../client/types.js';
import type { ResourceTable } from '../../rest/index.js';
import type { Authorizer } from '../types.js';
import { AggregationController } from './aggregation.js';
import { defaultClusterRoleBindings, defaultClusterRoles, defaultRoleBindings, defaultRoles } from './bootstrap-policy.js';
import { RBACCache, rbacResource } from './cache.js';
import type { RBACSource } from './authorizer.js';
import { EscalationCheck, withEscalationCheck, type RBACResource } from './escalation.js';
import { reconcileNamespacedUntilDone, reconcilePolicy } from './reconcile.js';

const wrapped = new WeakSet<object>();

/**
 * Replaces the RBAC stores of the table by ones that refuse escalating writes, now and
 * whenever the table changes (a store added again must not come back unguarded). Idempotent.
 * Returns the function that stops following the table.
 */
export function installEscalationChecks(table: ResourceTable, source: RBACSource, authorizer: Authorizer): () => void {
  const check = new EscalationCheck(source, authorizer);
  const install = () => {
    for (const resource of ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings'] as RBACResource[]) {
      const gvr = rbacResource(resource);
      const store = table.lookup({ group: gvr.group, version: gvr.version }, resource);
      if (!store || wrapped.has(store)) continue;
      const guarded = withEscalationCheck(store, resource, check);
      wrapped.add(guarded);
      table.add(guarded); // replaces the entry in place (and calls back here, finding it guarded)
    }
  };
  install();
  return table.onChange(install);
}

/** Reconciles the default policy, starts the cache and the aggregation controller. */
export async function startRBAC(client: ApiClient, cache: RBACCache, signal: AbortSignal): Promise<() => Promise<void>> {
  const pending = await reconcilePolicy(client, {
    clusterRoles: defaultClusterRoles(),
    clusterRoleBindings: defaultClusterRoleBindings(),
    roles: defaultRoles(),
    roleBindings: defaultRoleBindings(),
  });
  const retry = reconcileNamespacedUntilDone(client, pending, signal);
  cache.start();
  await cache.waitForSync();
  const aggregation = new AggregationController(client, () => cache.clusterRoles.list());
  const unsubscribe = cache.clusterRoles.onChange(() => aggregation.enqueue());
  aggregation.enqueue();
  await aggregation.idle();
  return async () => {
    unsubscribe();
    cache.stop();
    await aggregation.idle();
    await retry;
  };
}
