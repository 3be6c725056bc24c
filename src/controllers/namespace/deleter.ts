// What the namespace controller does to one terminating namespace: delete its content in
// every namespaced resource served at that moment, count what remains (and which
// finalizers hold it), and report it as the namespace status conditions Kubernetes sets.
import { isApiError } from '../../apimachinery/errors.js';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import { rfc3339 } from '../../apimachinery/time.js';
import { canDeleteCollection } from '../../client/extended.js';
import type { ApiClient } from '../../client/types.js';
import type { ResourceDefinition, ResourceTable } from '../../rest/index.js';

interface ContentDeletionResult {
  /** Remaining objects per resource (`<resource>.<group>` as Kubernetes prints it). */
  remaining: Map<string, number>;
  /** Remaining objects per finalizer they carry. */
  finalizers: Map<string, number>;
  /** Failures, one per resource that could not be cleared. */
  errors: string[];
}

/**
 * One definition per stored resource that lives in namespaces and can be deleted: versions
 * and groups that share storage (events, for one) are deleted once, through the preferred one.
 */
export function deletableResources(table: ResourceTable): ResourceDefinition[] {
  const byStorage = new Map<string, ResourceDefinition>();
  for (const store of table.all()) {
    const def = store.definition;
    if (!def.namespaced || !def.verbs.includes('list')) continue;
    if (!def.verbs.includes('delete') && !def.verbs.includes('deletecollection')) continue;
    const storage = def.storage ? `${def.storage.group}/${def.storage.resource}` : `${def.group}/${def.resource}`;
    const current = byStorage.get(storage);
    if (!current || (def.preferred && !current.preferred)) byStorage.set(storage, def);
  }
  return [...byStorage.values()].sort((a, b) => (a.group + a.resource < b.group + b.resource ? -1 : 1));
}

function gvr(def: ResourceDefinition): GroupVersionResource {
  return { group: def.group, version: def.version, resource: def.resource };
}

/** A resource that disappeared from the table, or a verb a store turned down, is not a failure. */
function ignorable(err: unknown): boolean {
  return isApiError(err) && (err.code === 404 || err.code === 405);
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function deleteIn(client: ApiClient, def: ResourceDefinition, namespace: string): Promise<void> {
  const r = gvr(def);
  if (def.verbs.includes('deletecollection') && canDeleteCollection(client)) {
    await client.deleteCollection(r, namespace, { propagationPolicy: 'Background' });
    return;
  }
  const list = await client.list(r, namespace);
  for (const item of list.items) {
    if (item.metadata?.deletionTimestamp) continue;
    try {
      await client.delete(r, namespace, item.metadata?.name ?? '', { propagationPolicy: 'Background' });
    } catch (err) {
      if (!(isApiError(err) && err.code === 404)) throw err;
    }
  }
}

function tally(items: KubeObject[], finalizers: Map<string, number>): void {
  for (const item of items) {
    for (const f of item.metadata?.finalizers ?? []) finalizers.set(f, (finalizers.get(f) ?? 0) + 1);
  }
}

export async function deleteAllContent(client: ApiClient, table: ResourceTable, namespace: string): Promise<ContentDeletionResult> {
  const result: ContentDeletionResult = { remaining: new Map(), finalizers: new Map(), errors: [] };
  for (const def of deletableResources(table)) {
    try {
      await deleteIn(client, def, namespace);
    } catch (err) {
      if (!ignorable(err)) result.errors.push(describe(err));
      if (!ignorable(err)) continue;
    }
    try {
      const left = await client.list(gvr(def), namespace);
      if (left.items.length > 0) {
        result.remaining.set(`${def.resource}.${def.group}`, left.items.length);
        tally(left.items, result.finalizers);
      }
    } catch (err) {
      if (!ignorable(err)) result.errors.push(describe(err));
    }
  }
  return result;
}

export interface NamespaceCondition {
  type: string;
  status: 'True' | 'False';
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** The condition types the deleter owns, in the order Kubernetes lists them. */
const CONDITION_TYPES = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGroupVersionParsingFailure',
  'NamespaceDeletionContentFailure',
  'NamespaceContentRemaining',
  'NamespaceFinalizersRemaining',
] as const;

const OK: Record<(typeof CONDITION_TYPES)[number], { reason: string; message: string }> = {
  NamespaceDeletionDiscoveryFailure: { reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
  NamespaceDeletionGroupVersionParsingFailure: { reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
  NamespaceDeletionContentFailure: { reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
  NamespaceContentRemaining: { reason: 'ContentRemoved', message: 'All content successfully removed' },
  NamespaceFinalizersRemaining: { reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' },
};

function aggregate(errors: string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
}

/**
 * The namespace's conditions after a deletion pass. Conditions of other types are kept; a
 * condition whose status did not change keeps its lastTransitionTime. Pure.
 */
export function deletionConditions(existing: NamespaceCondition[], result: ContentDeletionResult, now: Date): NamespaceCondition[] {
  const fresh = new Map<string, Omit<NamespaceCondition, 'lastTransitionTime'>>();
  for (const type of CONDITION_TYPES) fresh.set(type, { type, status: 'False', ...OK[type] });
  if (result.errors.length > 0) {
    fresh.set('NamespaceDeletionContentFailure', {
      type: 'NamespaceDeletionContentFailure',
      status: 'True',
      reason: 'ContentDeletionFailed',
      message: `Failed to delete all resource types, ${result.errors.length} remaining: ${aggregate(result.errors)}`,
    });
  }
  const remaining = [...result.remaining].filter(([, n]) => n > 0).map(([r, n]) => `${r} has ${n} resource instances`).sort();
  if (remaining.length > 0) {
    fresh.set('NamespaceContentRemaining', {
      type: 'NamespaceContentRemaining',
      status: 'True',
      reason: 'SomeResourcesRemain',
      message: `Some resources are remaining: ${remaining.join(', ')}`,
    });
  }
  const finalizers = [...result.finalizers].filter(([, n]) => n > 0).map(([f, n]) => `${f} in ${n} resource instances`).sort();
  if (finalizers.length > 0) {
    fresh.set('NamespaceFinalizersRemaining', {
      type: 'NamespaceFinalizersRemaining',
      status: 'True',
      reason: 'SomeFinalizersRemain',
      message: `Some content in the namespace has finalizers remaining: ${finalizers.join(', ')}`,
    });
  }
  const stamp = rfc3339(now);
  const out: NamespaceCondition[] = existing.filter((c) => !fresh.has(c.type));
  for (const type of CONDITION_TYPES) {
    const next = fresh.get(type)!;
    const prev = existing.find((c) => c.type === type);
    const lastTransitionTime = prev && prev.status === next.status ? prev.lastTransitionTime : stamp;
    out.push({ ...next, lastTransitionTime });
  }
  return out;
}

/** Whether two condition lists say the same (ignoring nothing: used to skip no-op writes). */
export function sameConditions(a: NamespaceCondition[], b: NamespaceCondition[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
