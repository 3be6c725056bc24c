// What a delete does to a stored object: remove it, mark it as being deleted (finalizers
// or a grace period hold it), or leave it as it is (its deletion is already under way).
// Kinds with a `gracefulDeletePeriod` hook (pods) get a deletion timestamp in the future
// and may have it shortened by a later delete; Kubernetes' BeforeDelete rules.
import type { KubeObject, ObjectMeta } from '../apimachinery/types.js';
import type { DeleteOptions, Strategy } from '../rest/index.js';
import { rfc3339 } from '../apimachinery/time.js';
import { deepCopy } from '../apimachinery/copy.js';

export type DeletePlan =
  /** Remove the stored object now. */
  | { kind: 'remove' }
  /** Its deletion is already pending with at most the asked grace period: change nothing. */
  | { kind: 'unchanged' }
  /** Write `object` (marked as being deleted) and keep it. */
  | { kind: 'update'; object: KubeObject }
  /** Write `object` (deletion timestamp of now, grace 0), then remove it, as Kubernetes does. */
  | { kind: 'updateThenRemove'; object: KubeObject };


function metaOf(obj: KubeObject): ObjectMeta {
  if (obj.metadata === undefined || obj.metadata === null || typeof obj.metadata !== 'object') obj.metadata = {};
  return obj.metadata;
}

/** A negative grace period means one second on the delete path. */
export function normalizedGracePeriod(seconds: number | undefined): number | undefined {
  if (seconds === undefined) return undefined;
  return seconds < 0 ? 1 : seconds;
}

/** Marks an object that finalizers hold: deleted now, no grace (generation bumped once). */
export function markDeleting(current: KubeObject, now: Date): KubeObject {
  const next = deepCopy(current);
  const m = metaOf(next);
  if (!m.deletionTimestamp && (m.generation ?? 0) > 0) m.generation = (m.generation ?? 0) + 1;
  if (!m.deletionTimestamp || Date.parse(m.deletionTimestamp) > now.getTime()) m.deletionTimestamp = rfc3339(now);
  m.deletionGracePeriodSeconds = 0;
  return next;
}

function hasFinalizers(obj: KubeObject): boolean {
  return (obj.metadata?.finalizers ?? []).length > 0;
}

/** The garbage collector's finalizers (the same words in both flavors, as in Kubernetes). */
export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

type GCPolicy = NonNullable<Strategy['defaultGarbageCollectionPolicy']>;

/**
 * Whether the collector orphans / deletes in the foreground the dependents of `finalizers`'
 * object, in Kubernetes' order: the request's options, then the finalizers the object
 * already has, then the kind's default.
 */
function gcChoice(finalizers: string[], opts: DeleteOptions, policy: GCPolicy): { orphan: boolean; foreground: boolean } {
  if (policy === 'Unsupported') return { orphan: false, foreground: false };
  if (opts.orphanDependents !== undefined) return { orphan: opts.orphanDependents, foreground: false };
  if (opts.propagationPolicy) return { orphan: opts.propagationPolicy === 'Orphan', foreground: opts.propagationPolicy === 'Foreground' };
  for (const f of finalizers) {
    if (f === ORPHAN_FINALIZER) return { orphan: true, foreground: false };
    if (f === FOREGROUND_FINALIZER) return { orphan: false, foreground: true };
  }
  return { orphan: policy === 'OrphanDependents', foreground: false };
}

/**
 * The finalizers a delete leaves on the object for the garbage collector, or undefined when
 * they stay as they are (compared as sets, as Kubernetes does).
 */
export function gcFinalizers(current: KubeObject, opts: DeleteOptions, policy: GCPolicy = 'DeleteDependents'): string[] | undefined {
  const old = current.metadata?.finalizers ?? [];
  const choice = gcChoice(old, opts, policy);
  const next = old.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (choice.orphan) next.push(ORPHAN_FINALIZER);
  if (choice.foreground) next.push(FOREGROUND_FINALIZER);
  const a = new Set(old);
  const b = new Set(next);
  if (a.size === b.size && [...a].every((f) => b.has(f))) return undefined;
  return next;
}

function withFinalizers(obj: KubeObject, finalizers: string[] | undefined): KubeObject {
  if (!finalizers) return obj;
  const next = deepCopy(obj);
  if (finalizers.length > 0) metaOf(next).finalizers = finalizers;
  else delete metaOf(next).finalizers;
  return next;
}

/** Deletion without a grace period: finalizers alone decide (the collector's ones as the options ask). */
function planImmediate(current: KubeObject, now: Date, finalizers: string[] | undefined): DeletePlan {
  const next = withFinalizers(current, finalizers);
  if (!hasFinalizers(next)) return { kind: 'remove' };
  if (current.metadata?.deletionTimestamp && !finalizers) return { kind: 'unchanged' };
  return { kind: 'update', object: markDeleting(next, now) };
}

/** The object, marked as being deleted, goes once the grace period and the finalizers allow. */
function planGraceful(next: KubeObject, period: number): DeletePlan {
  if (hasFinalizers(next) || period > 0) return { kind: 'update', object: next };
  return { kind: 'updateThenRemove', object: next };
}

export function planDelete(
  strategy: Pick<Strategy, 'gracefulDeletePeriod' | 'defaultGarbageCollectionPolicy'>,
  current: KubeObject,
  opts: DeleteOptions,
  now: Date,
): DeletePlan {
  const hook = strategy.gracefulDeletePeriod;
  const finalizers = gcFinalizers(current, opts, strategy.defaultGarbageCollectionPolicy);
  if (!hook) return planImmediate(current, now, finalizers);
  const grace = normalizedGracePeriod(opts.gracePeriodSeconds);
  const m = current.metadata ?? {};

  if (m.deletionTimestamp) {
    const pending = normalizedGracePeriod(m.deletionGracePeriodSeconds ?? undefined);
    // A deletion marked without a grace period (or an interrupted one) finishes now.
    if (pending === undefined || pending === 0) return planImmediate(current, now, finalizers);
    // Only a shorter grace period changes a pending deletion.
    if (grace === undefined || grace >= pending) return { kind: 'unchanged' };
    // A pending graceful deletion keeps its finalizers: only the grace period shortens.
    const next = deepCopy(current);
    const nm = metaOf(next);
    const start = Date.parse(m.deletionTimestamp) - pending * 1000;
    nm.deletionTimestamp = rfc3339(new Date(start + grace * 1000));
    nm.deletionGracePeriodSeconds = grace;
    return planGraceful(next, grace);
  }

  const period = hook(current, { ...opts, gracePeriodSeconds: grace });
  const next = withFinalizers(deepCopy(current), finalizers);
  const nm = metaOf(next);
  nm.deletionTimestamp = rfc3339(new Date(now.getTime() + period * 1000));
  nm.deletionGracePeriodSeconds = period;
  if ((nm.generation ?? 0) > 0) nm.generation = (nm.generation ?? 0) + 1;
  return planGraceful(next, period);
}
