// What a delete does to a stored object: remove it, mark it as being deleted (finalizers
// or a grace period hold it), or leave it as it is (its deletion is already under way).
// Kinds with a `gracefulDeletePeriod` hook (pods) get a deletion timestamp in the future
// and may have it shortened by a later delete; Kubernetes' BeforeDelete rules.
import type { KubeObject, ObjectMeta } from '../apimachinery/types.js';
import type { DeleteOptions, Strategy } from '../rest/index.js';
import { rfc3339 } from '../apimachinery/time.js';

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
  const next = structuredClone(current);
  const m = metaOf(next);
  if (!m.deletionTimestamp && (m.generation ?? 0) > 0) m.generation = (m.generation ?? 0) + 1;
  if (!m.deletionTimestamp || Date.parse(m.deletionTimestamp) > now.getTime()) m.deletionTimestamp = rfc3339(now);
  m.deletionGracePeriodSeconds = 0;
  return next;
}

function hasFinalizers(obj: KubeObject): boolean {
  return (obj.metadata?.finalizers ?? []).length > 0;
}

/** Deletion without a grace period: finalizers alone decide. */
function planImmediate(current: KubeObject, now: Date): DeletePlan {
  if (!hasFinalizers(current)) return { kind: 'remove' };
  if (current.metadata?.deletionTimestamp) return { kind: 'unchanged' };
  return { kind: 'update', object: markDeleting(current, now) };
}

/** The object, marked as being deleted, goes once the grace period and the finalizers allow. */
function planGraceful(next: KubeObject, period: number): DeletePlan {
  if (hasFinalizers(next) || period > 0) return { kind: 'update', object: next };
  return { kind: 'updateThenRemove', object: next };
}

export function planDelete(strategy: Pick<Strategy, 'gracefulDeletePeriod'>, current: KubeObject, opts: DeleteOptions, now: Date): DeletePlan {
  const hook = strategy.gracefulDeletePeriod;
  if (!hook) return planImmediate(current, now);
  const grace = normalizedGracePeriod(opts.gracePeriodSeconds);
  const m = current.metadata ?? {};

  if (m.deletionTimestamp) {
    const pending = normalizedGracePeriod(m.deletionGracePeriodSeconds ?? undefined);
    // A deletion marked without a grace period (or an interrupted one) finishes now.
    if (pending === undefined || pending === 0) return planImmediate(current, now);
    // Only a shorter grace period changes a pending deletion.
    if (grace === undefined || grace >= pending) return { kind: 'unchanged' };
    const next = structuredClone(current);
    const nm = metaOf(next);
    const start = Date.parse(m.deletionTimestamp) - pending * 1000;
    nm.deletionTimestamp = rfc3339(new Date(start + grace * 1000));
    nm.deletionGracePeriodSeconds = grace;
    return planGraceful(next, grace);
  }

  const period = hook(current, { ...opts, gracePeriodSeconds: grace });
  const next = structuredClone(current);
  const nm = metaOf(next);
  nm.deletionTimestamp = rfc3339(new Date(now.getTime() + period * 1000));
  nm.deletionGracePeriodSeconds = period;
  if ((nm.generation ?? 0) > 0) nm.generation = (nm.generation ?? 0) + 1;
  return planGraceful(next, period);
}
