// The Job controller (kube-controller-manager's `job`): runs the Job's pods as
// `parallelism`/`completions`/`completionMode` ask, counts finished pods through the
// tracking finalizer (uid into `status.uncountedTerminatedPods`, finalizer removed, then
// counted), and finishes the Job as Complete, or as Failed past `backoffLimit` or
// `activeDeadlineSeconds`, or as a `podFailurePolicy` FailJob rule says (FailureTarget first,
// then Failed). `suspend` removes the active pods. Pods are claimed as Kubernetes' controllers
// claim them: an orphan the selector matches is adopted (and gets the tracking finalizer), an
// owned pod it no longer matches is released (and loses it); an orphan nobody adopts loses
// the finalizer. Pods move only when a node agent, or someone, writes their status.
import type { KubeObject } from '../../apimachinery/types.js';
import { rfc3339 } from '../../apimachinery/time.js';
import type { EventRecorder } from '../../client/events.js';
import type { Informer } from '../../client/informer.js';
import { NAMESPACE_INDEX } from '../../client/indexes.js';
import { keyOf, splitKey } from '../../client/informer.js';
import type { ApiClient } from '../../client/types.js';
import { labelSelectorAsSelector, type LabelSelectorObject } from '../../apimachinery/labels.js';
import { longDomainKey } from '../../naming/index.js';
import type { ControllerContext, ControllerDescriptor } from '../types.js';
import { conditionsOf, controllerRef, controllerUid, isNotFound, jobFinished, JOBS, PODS, type Condition } from './common.js';
import { KeyedLoop } from '../keyed-loop.js';
import { matchPodFailurePolicy, POD_FAILURE_POLICY_REASON, type PodFailurePolicy } from './pod-failure-policy.js';

const COMPONENT = 'job-controller';
/** Pod re-creation after failures waits 10 s, doubling, up to 6 min (Kubernetes' pod failure back-off). */
const POD_BACKOFF_BASE_MS = 10_000;
const POD_BACKOFF_MAX_MS = 360_000;

export function trackingFinalizer(): string {
  return longDomainKey('job-tracking', 'batch');
}

export function completionIndexAnnotation(): string {
  return longDomainKey('job-completion-index', 'batch');
}

interface JobSpec {
  parallelism?: number;
  completions?: number | null;
  completionMode?: 'NonIndexed' | 'Indexed';
  backoffLimit?: number;
  activeDeadlineSeconds?: number;
  suspend?: boolean;
  podFailurePolicy?: PodFailurePolicy | null;
  selector?: LabelSelectorObject | null;
  template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Record<string, unknown> };
}

interface JobStatus {
  conditions?: Condition[];
  startTime?: string;
  completionTime?: string;
  active?: number;
  succeeded?: number;
  failed?: number;
  ready?: number;
  completedIndexes?: string;
  uncountedTerminatedPods?: { succeeded?: string[]; failed?: string[] };
}

function specOf(job: KubeObject): JobSpec {
  return (job.spec ?? {}) as JobSpec;
}

function phaseOf(pod: KubeObject): string {
  return String((pod.status as { phase?: string } | undefined)?.phase ?? '');
}

function isReady(pod: KubeObject): boolean {
  const conds = (pod.status as { conditions?: Condition[] } | undefined)?.conditions ?? [];
  return conds.some((c) => c.type === 'Ready' && c.status === 'True');
}

/**
 * A pod counts as failed when it failed, or was deleted before it succeeded; under a pod
 * failure policy only once it is Failed (its exit codes and conditions are then known, and a
 * pod deleted without a node is marked Failed by the pod garbage collector).
 */
function podFailed(pod: KubeObject, withPolicy = false): boolean {
  if (phaseOf(pod) === 'Failed') return true;
  return !withPolicy && pod.metadata?.deletionTimestamp !== undefined && phaseOf(pod) !== 'Succeeded';
}

function podFinished(pod: KubeObject, withPolicy = false): boolean {
  return phaseOf(pod) === 'Succeeded' || podFailed(pod, withPolicy);
}

/** The condition a FailJob rule sets at once, before the Job is marked Failed. */
const FAILURE_TARGET = 'FailureTarget';

const ORPHAN = 'orphan:';

/** The Job's selector; undefined (selects nothing) when it does not parse. */
function selectorOf(job: KubeObject): ReturnType<typeof labelSelectorAsSelector> | undefined {
  try {
    return labelSelectorAsSelector(specOf(job).selector);
  } catch {
    return undefined;
  }
}

function selects(job: KubeObject, pod: KubeObject): boolean {
  return selectorOf(job)?.matches(pod.metadata?.labels ?? {}) ?? false;
}

function hasFinalizer(pod: KubeObject): boolean {
  return (pod.metadata?.finalizers ?? []).includes(trackingFinalizer());
}

/** The completion index of a pod of an Indexed Job, when valid. */
export function podIndex(pod: KubeObject, completions: number): number | undefined {
  const text = pod.metadata?.annotations?.[completionIndexAnnotation()];
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return n < completions ? n : undefined;
}

/** `1,3-5,7` from a set of indexes. */
export function formatIndexes(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

export function parseIndexes(text: string | undefined, completions: number): Set<number> {
  const out = new Set<number>();
  for (const part of (text ?? '').split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) continue;
    const end = Math.min(Number(m[2] ?? m[1]), completions - 1);
    for (let i = Number(m[1]); i <= end; i++) out.add(i);
  }
  return out;
}

/** The pod of one more execution of `job` (index `index` when Indexed). */
export function podFromTemplate(job: KubeObject, index?: number): KubeObject {
  const tpl = specOf(job).template ?? {};
  const jobName = job.metadata?.name ?? '';
  const spec = structuredClone(tpl.spec ?? {}) as Record<string, unknown>;
  const annotations = { ...(tpl.metadata?.annotations ?? {}) };
  if (index !== undefined) {
    annotations[completionIndexAnnotation()] = String(index);
    if (spec.hostname === undefined) spec.hostname = `${jobName}-${index}`;
    // Every container learns its index from the annotation, as JOB_COMPLETION_INDEX.
    for (const field of ['initContainers', 'containers']) {
      const containers = spec[field];
      if (!Array.isArray(containers)) continue;
      for (const c of containers as { env?: { name: string }[] }[]) {
        const env = c.env ?? [];
        if (env.some((e) => e.name === 'JOB_COMPLETION_INDEX')) continue;
        c.env = [...env, { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${completionIndexAnnotation()}']` } } } as { name: string }];
      }
    }
  }
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: index === undefined ? `${jobName}-` : `${jobName}-${index}-`,
      namespace: job.metadata?.namespace,
      labels: { ...(tpl.metadata?.labels ?? {}) },
      annotations,
      finalizers: [trackingFinalizer()],
      ownerReferences: controllerRef(job, 'batch/v1', 'Job'),
    },
    spec,
  };
}

function newCondition(type: string, now: Date, reason?: string, message?: string, status = 'True'): Condition {
  const t = rfc3339(now);
  return { type, status, lastProbeTime: t, lastTransitionTime: t, ...(reason ? { reason } : {}), ...(message ? { message } : {}) };
}

/** Sets a condition, keeping its transition time when its status does not change. */
function setCondition(conditions: Condition[], c: Condition): Condition[] {
  const old = conditions.find((x) => x.type === c.type);
  if (old && old.status === c.status && old.reason === c.reason && old.message === c.message) return conditions;
  return [...conditions.filter((x) => x.type !== c.type), c];
}

export interface JobControllerOptions {
  client: ApiClient;
  jobs: Informer;
  pods: Informer;
  clock: ControllerContext['clock'];
  recorder: EventRecorder;
  onError: (err: unknown) => void;
}

interface Expectations {
  /** Pods created, by name. */
  created: Set<string>;
  /** Pods deleted, by uid. */
  deleted: Set<string>;
  /** Pods whose tracking finalizer came off, by uid. */
  released: Set<string>;
  /** Orphans adopted, by uid, as the adoption left them. */
  adopted: Map<string, KubeObject>;
  /** Pods given up (the selector no longer matches), by uid. */
  disowned: Set<string>;
}

interface BackoffRecord {
  failures: number;
  lastFailure: number;
}

export class JobController extends KeyedLoop {
  /** Failures since the last success, per Job uid: paces re-creation of failed pods. */
  private readonly backoff = new Map<string, BackoffRecord>();
  /**
   * What this controller did that the pod informer may not show yet, per Job uid: pods
   * created (by name), deleted and released from the finalizer (by uid). Without them a
   * lagging cache would make a pass create pods twice or count a pod twice.
   */
  private readonly expect = new Map<string, Expectations>();

  private expectations(uid: string): Expectations {
    let e = this.expect.get(uid);
    if (!e) this.expect.set(uid, (e = { created: new Set(), deleted: new Set(), released: new Set(), adopted: new Map(), disowned: new Set() }));
    return e;
  }

  constructor(private readonly opts: JobControllerOptions) {
    super(opts.clock, 'job', { maxRetryDelayMs: 60_000 });
    const enqueue = (job: KubeObject): void => this.add(keyOf(job));
    this.onStop(opts.jobs.addEventHandler({ onAdd: enqueue, onUpdate: (_o, n) => enqueue(n), onDelete: enqueue }));
    const podChanged = (pod: KubeObject): void => {
      const ns = pod.metadata?.namespace ?? '';
      const owner = pod.metadata?.ownerReferences?.find((r) => r.controller === true);
      if (owner) {
        if (owner.kind === 'Job') this.add(`${ns}/${owner.name}`);
        return;
      }
      // An orphan: a Job it matches may adopt it; if none does, it must not keep the finalizer.
      if (pod.metadata?.deletionTimestamp === undefined) {
        for (const j of opts.jobs.list()) if (j.metadata?.namespace === ns && !jobFinished(j) && selects(j, pod)) this.add(keyOf(j));
      }
      if (hasFinalizer(pod)) this.add(`${ORPHAN}${ns}/${pod.metadata?.name ?? ''}`);
    };
    const podUpdated = (old: KubeObject, pod: KubeObject): void => {
      // A pod released by (or taken from) its Job: the old owner counts without it.
      const before = old.metadata?.ownerReferences?.find((r) => r.controller === true && r.kind === 'Job');
      const now = pod.metadata?.ownerReferences?.find((r) => r.controller === true && r.kind === 'Job');
      if (before && before.uid !== now?.uid) this.add(`${old.metadata?.namespace ?? ''}/${before.name}`);
      podChanged(pod);
    };
    this.onStop(opts.pods.addEventHandler({ onAdd: podChanged, onUpdate: podUpdated, onDelete: podChanged }));
  }

  start(workers: number): void {
    this.run((key) => this.sync(key), workers, this.opts.onError);
  }

  private event(job: KubeObject, type: 'Normal' | 'Warning', reason: string, note: string, related?: KubeObject): void {
    this.opts.recorder.eventf(job, related, type, reason, reason, note);
  }

  private async removeFinalizers(pods: KubeObject[], released?: Set<string>): Promise<void> {
    for (const pod of pods) {
      released?.add(pod.metadata?.uid ?? '');
      const finalizers = (pod.metadata?.finalizers ?? []).filter((f) => f !== trackingFinalizer());
      try {
        await this.opts.client.patch(PODS, pod.metadata?.namespace ?? '', pod.metadata?.name ?? '', {
          metadata: { finalizers: finalizers.length > 0 ? finalizers : null, resourceVersion: pod.metadata?.resourceVersion },
        });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }

  private async deletePods(job: KubeObject, pods: KubeObject[], deleted: Set<string>): Promise<void> {
    for (const pod of pods) {
      deleted.add(pod.metadata?.uid ?? '');
      try {
        await this.opts.client.delete(PODS, pod.metadata?.namespace ?? '', pod.metadata?.name ?? '');
        this.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata?.name ?? ''}`, pod);
      } catch (err) {
        if (isNotFound(err)) continue;
        this.event(job, 'Warning', 'FailedDelete', `Error deleting: ${(err as Error).message}`, pod);
        throw err;
      }
    }
  }

  /**
   * A pod with the tracking finalizer and no controller: the finalizer comes off unless a
   * running Job in its namespace selects it (that Job adopts it and keeps the finalizer).
   */
  private async syncOrphan(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const pod = this.opts.pods.get(namespace, name);
    if (!pod || !hasFinalizer(pod)) return;
    const owner = pod.metadata?.ownerReferences?.find((r) => r.controller === true);
    if (owner) {
      if (owner.kind !== 'Job') return;
      const job = this.opts.jobs.get(namespace, owner.name);
      // Owned by a running Job: that Job's pass counts it.
      if (job && job.metadata?.uid === owner.uid && !jobFinished(job)) return;
    } else if (
      pod.metadata?.deletionTimestamp === undefined &&
      this.opts.jobs.list().some((j) => j.metadata?.namespace === namespace && !jobFinished(j) && j.metadata?.deletionTimestamp === undefined && selects(j, pod))
    ) {
      return;
    }
    await this.removeFinalizers([pod]);
  }

  /**
   * The pods of `job`: those it controls and its selector still matches, and orphans the
   * selector matches, adopted here (owner reference and tracking finalizer); a controlled
   * pod the selector no longer matches is released (both taken off).
   */
  private async claimPods(job: KubeObject, expected: Expectations): Promise<KubeObject[]> {
    const namespace = job.metadata?.namespace ?? '';
    const uid = job.metadata?.uid ?? '';
    const out: KubeObject[] = [];
    let fresh: boolean | undefined;
    const seen = new Set<string>();
    const selector = selectorOf(job);
    for (const pod of this.opts.pods.byIndex(NAMESPACE_INDEX, namespace)) {
      const puid = pod.metadata?.uid ?? '';
      seen.add(puid);
      const owner = pod.metadata?.ownerReferences?.find((r) => r.controller === true);
      const matches = selector?.matches(pod.metadata?.labels ?? {}) ?? false;
      if (owner?.uid === uid) {
        expected.adopted.delete(puid);
        // Given up already; the cache has not caught up.
        if (expected.disowned.has(puid)) continue;
        if (matches || pod.metadata?.deletionTimestamp !== undefined) {
          out.push(pod);
          continue;
        }
        await this.patchOwnership(pod, (pod.metadata?.ownerReferences ?? []).filter((r) => r.uid !== uid), false);
        expected.disowned.add(puid);
        continue;
      }
      expected.disowned.delete(puid);
      const adopted = expected.adopted.get(puid);
      if (adopted && !owner) {
        // Adopted already; the cache has not caught up.
        out.push(adopted);
        continue;
      }
      expected.adopted.delete(puid);
      if (owner || !matches || pod.metadata?.deletionTimestamp !== undefined || job.metadata?.deletionTimestamp !== undefined) continue;
      // Adopt only for the Job that is really there now (not a deleted one's cached copy).
      if (fresh === undefined) {
        try {
          const live = await this.opts.client.get(JOBS, namespace, job.metadata?.name ?? '');
          fresh = live.metadata?.uid === uid && live.metadata?.deletionTimestamp === undefined;
        } catch (err) {
          if (!isNotFound(err)) throw err;
          fresh = false;
        }
      }
      if (!fresh) continue;
      const taken = await this.patchOwnership(pod, [...(pod.metadata?.ownerReferences ?? []), ...(controllerRef(job, 'batch/v1', 'Job') ?? [])], true);
      if (taken) {
        expected.adopted.set(puid, taken);
        out.push(taken);
      }
    }
    for (const u of [...expected.adopted.keys()]) if (!seen.has(u)) expected.adopted.delete(u);
    for (const u of [...expected.disowned]) if (!seen.has(u)) expected.disowned.delete(u);
    return out;
  }

  /** Sets the pod's owner references, and puts on or takes off the tracking finalizer. */
  private async patchOwnership(pod: KubeObject, ownerReferences: NonNullable<NonNullable<KubeObject['metadata']>['ownerReferences']>, track: boolean): Promise<KubeObject | undefined> {
    const others = (pod.metadata?.finalizers ?? []).filter((f) => f !== trackingFinalizer());
    const finalizers = track ? [...others, trackingFinalizer()] : others;
    try {
      return await this.opts.client.patch(PODS, pod.metadata?.namespace ?? '', pod.metadata?.name ?? '', {
        metadata: {
          ownerReferences: ownerReferences.length > 0 ? ownerReferences : null,
          finalizers: finalizers.length > 0 ? finalizers : null,
          resourceVersion: pod.metadata?.resourceVersion,
        },
      });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** One pass over one Job (or one orphan pod). Throws to be retried with back-off. */
  async sync(key: string): Promise<void> {
    if (key.startsWith(ORPHAN)) {
      await this.syncOrphan(key.slice(ORPHAN.length));
      return;
    }
    const { client, clock } = this.opts;
    const { namespace, name } = splitKey(key);
    let job: KubeObject;
    try {
      job = await client.get(JOBS, namespace, name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      // The Job is gone: its pods must not stay held by the tracking finalizer.
      const orphans = this.opts.pods.byIndex(NAMESPACE_INDEX, namespace).filter(
        (p) => hasFinalizer(p) && p.metadata?.ownerReferences?.some((r) => r.controller === true && r.kind === 'Job' && r.name === name),
      );
      await this.removeFinalizers(orphans);
      return;
    }
    const uid = job.metadata?.uid ?? '';
    const expected = this.expectations(uid);
    const listed = jobFinished(job)
      ? this.opts.pods.byIndex(NAMESPACE_INDEX, namespace).filter((p) => controllerUid(p, 'Job') === uid)
      : await this.claimPods(job, expected);
    // Bring the expectations up to what the cache shows now.
    for (const p of listed) expected.created.delete(p.metadata?.name ?? '');
    const listedUids = new Set(listed.map((p) => p.metadata?.uid ?? ''));
    for (const u of [...expected.deleted]) {
      const p = listed.find((x) => x.metadata?.uid === u);
      if (!p || p.metadata?.deletionTimestamp) expected.deleted.delete(u);
    }
    for (const u of [...expected.released]) {
      const p = listed.find((x) => x.metadata?.uid === u);
      if (!listedUids.has(u) || (p && !hasFinalizer(p))) expected.released.delete(u);
    }
    const pods = listed.filter((p) => !expected.released.has(p.metadata?.uid ?? ''));
    if (jobFinished(job)) {
      await this.removeFinalizers(pods.filter(hasFinalizer));
      this.backoff.delete(uid);
      this.expect.delete(uid);
      return;
    }
    const spec = specOf(job);
    const now = clock.now();
    const status: JobStatus = structuredClone((job.status ?? {}) as JobStatus);
    let conditions = [...conditionsOf(job)];
    const indexed = spec.completionMode === 'Indexed';
    const completions = typeof spec.completions === 'number' ? spec.completions : undefined;
    const parallelism = spec.parallelism ?? 1;
    const suspended = spec.suspend === true;

    // Count what finished: uid into the uncounted lists, finalizer off, then into the totals.
    const uncounted = { succeeded: [...(status.uncountedTerminatedPods?.succeeded ?? [])], failed: [...(status.uncountedTerminatedPods?.failed ?? [])] };
    const known = new Set([...uncounted.succeeded, ...uncounted.failed]);
    const policy = spec.podFailurePolicy ?? undefined;
    const withPolicy = policy !== undefined;
    const newlyFinished = pods.filter((p) => hasFinalizer(p) && podFinished(p, withPolicy) && !known.has(p.metadata?.uid ?? ''));
    const completed = indexed && completions !== undefined ? parseIndexes(status.completedIndexes, completions) : new Set<number>();
    let newFailures = 0;
    /** Failed pods an Ignore rule matched: released from the finalizer, never counted. */
    const ignored: KubeObject[] = [];
    let failJobMessage: string | undefined;
    for (const pod of newlyFinished) {
      const puid = pod.metadata?.uid ?? '';
      if (phaseOf(pod) === 'Succeeded') {
        uncounted.succeeded.push(puid);
        if (indexed && completions !== undefined) {
          const ix = podIndex(pod, completions);
          if (ix !== undefined) completed.add(ix);
        }
        continue;
      }
      const match = matchPodFailurePolicy(policy, pod);
      if (!match.countFailed) {
        ignored.push(pod);
        continue;
      }
      failJobMessage ??= match.failJobMessage;
      uncounted.failed.push(puid);
      newFailures++;
    }
    const record = this.backoff.get(uid) ?? { failures: 0, lastFailure: 0 };
    // Pods removed by a suspension are no reason to pace the pods of the resumed Job.
    if (suspended) this.backoff.delete(uid);
    else if (newFailures > 0) this.backoff.set(uid, { failures: record.failures + newFailures, lastFailure: now.getTime() });
    else if (newlyFinished.some((p) => phaseOf(p) === 'Succeeded')) this.backoff.delete(uid);

    // Pods being deleted that are not finished yet (under a policy, until they are Failed) are
    // neither active nor counted.
    const active = pods.filter((p) => !podFinished(p, withPolicy) && p.metadata?.deletionTimestamp === undefined && !expected.deleted.has(p.metadata?.uid ?? ''));
    const succeededTotal = indexed ? completed.size : (status.succeeded ?? 0) + uncounted.succeeded.length;
    const failedTotal = (status.failed ?? 0) + uncounted.failed.length;

    if (status.startTime === undefined && !suspended) status.startTime = rfc3339(now);

    // Suspension: the condition, and on resume a fresh start time (the deadline counts anew).
    const suspendedCond = conditions.find((c) => c.type === 'Suspended');
    if (suspended && suspendedCond?.status !== 'True') {
      conditions = setCondition(conditions, newCondition('Suspended', now, 'JobSuspended', 'Job suspended'));
      this.event(job, 'Normal', 'Suspended', 'Job suspended');
    } else if (!suspended && suspendedCond?.status === 'True') {
      conditions = setCondition(conditions, newCondition('Suspended', now, 'JobResumed', 'Job resumed', 'False'));
      status.startTime = rfc3339(now);
      this.event(job, 'Normal', 'Resumed', 'Job resumed');
    }

    // Failure: a FailJob rule (now or in an earlier pass), past the back-off limit (restarts
    // count under OnFailure), or the deadline.
    let failure: { reason: string; message: string } | undefined;
    const target = conditions.find((c) => c.type === FAILURE_TARGET && c.status === 'True');
    const backoffLimit = spec.backoffLimit ?? 6;
    const restartPolicy = (spec.template?.spec as { restartPolicy?: string } | undefined)?.restartPolicy;
    const restarts = active.reduce((sum, p) => {
      const s = p.status as { containerStatuses?: { restartCount?: number }[]; initContainerStatuses?: { restartCount?: number }[] } | undefined;
      return sum + [...(s?.containerStatuses ?? []), ...(s?.initContainerStatuses ?? [])].reduce((n, c) => n + (c.restartCount ?? 0), 0);
    }, 0);
    const pastOnFailure = restartPolicy === 'OnFailure' && (backoffLimit === 0 ? restarts > 0 : restarts >= backoffLimit);
    if (target) {
      failure = { reason: target.reason ?? POD_FAILURE_POLICY_REASON, message: target.message ?? '' };
    } else if (failJobMessage !== undefined) {
      failure = { reason: POD_FAILURE_POLICY_REASON, message: failJobMessage };
      // Recorded before the pods' finalizers come off: the reason survives a pass cut short.
      conditions = setCondition(conditions, newCondition(FAILURE_TARGET, now, POD_FAILURE_POLICY_REASON, failJobMessage));
    } else if (failedTotal > backoffLimit || pastOnFailure) {
      failure = { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
    } else if (!suspended && typeof spec.activeDeadlineSeconds === 'number' && status.startTime) {
      const deadline = Date.parse(status.startTime) + spec.activeDeadlineSeconds * 1000;
      if (now.getTime() >= deadline) failure = { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
      else this.wakeAfter(key, deadline - now.getTime());
    }

    // How many pods should run now.
    let wantActive: number;
    if (failure || suspended) wantActive = 0;
    else if (completions === undefined) wantActive = succeededTotal > 0 ? Math.min(active.length, parallelism) : parallelism;
    else wantActive = Math.max(0, Math.min(parallelism, completions - succeededTotal));

    let activeCount = active.length + expected.created.size;
    if (activeCount > wantActive && active.length > 0) {
      // Pending before running, unready before ready, newest first.
      const victims = [...active]
        .sort((a, b) => Number(phaseOf(a) !== 'Pending') - Number(phaseOf(b) !== 'Pending') || Number(isReady(a)) - Number(isReady(b)) || String(b.metadata?.creationTimestamp ?? '').localeCompare(String(a.metadata?.creationTimestamp ?? '')))
        .slice(0, activeCount - wantActive);
      await this.deletePods(job, victims, expected.deleted);
      activeCount -= victims.length;
    } else if (activeCount < wantActive) {
      const rec = this.backoff.get(uid);
      const delay = rec && rec.failures > 0 ? Math.min(POD_BACKOFF_BASE_MS * 2 ** (rec.failures - 1), POD_BACKOFF_MAX_MS) - (now.getTime() - rec.lastFailure) : 0;
      if (delay > 0) this.wakeAfter(key, delay);
      else {
        const indexes: (number | undefined)[] = [];
        if (indexed && completions !== undefined) {
          const running = new Set(active.map((p) => podIndex(p, completions)).filter((i): i is number => i !== undefined));
          for (let i = 0; i < completions && indexes.length < wantActive - activeCount; i++) if (!completed.has(i) && !running.has(i)) indexes.push(i);
        } else for (let i = activeCount; i < wantActive; i++) indexes.push(undefined);
        for (const ix of indexes) {
          try {
            const pod = await this.opts.client.create(PODS, namespace, podFromTemplate(job, ix));
            expected.created.add(pod.metadata?.name ?? '');
            this.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata?.name ?? ''}`, pod);
            activeCount++;
          } catch (err) {
            this.event(job, 'Warning', 'FailedCreate', `Error creating: ${(err as Error).message}`);
            throw err;
          }
        }
      }
    }

    // First write: the newly finished pods recorded as uncounted, with the current counts.
    status.active = activeCount;
    status.ready = active.filter(isReady).length;
    if (indexed) status.completedIndexes = formatIndexes(completed);
    status.uncountedTerminatedPods = { ...(uncounted.succeeded.length ? { succeeded: uncounted.succeeded } : {}), ...(uncounted.failed.length ? { failed: uncounted.failed } : {}) };
    status.conditions = conditions;
    job = await this.writeStatus(job, status);

    // Then the finalizers off, then the totals: a pod is counted exactly once.
    const uncountedSet = new Set([...uncounted.succeeded, ...uncounted.failed]);
    await this.removeFinalizers(
      [...pods.filter((p) => hasFinalizer(p) && uncountedSet.has(p.metadata?.uid ?? '')), ...ignored],
      expected.released,
    );
    const counted: JobStatus = structuredClone((job.status ?? {}) as JobStatus);
    counted.succeeded = succeededTotal;
    counted.failed = failedTotal;
    counted.uncountedTerminatedPods = {};

    // Finished only once no pod of the Job is left to count.
    // (A policy's failure does not wait for the pods it deletes: they are Failed only later.)
    const ignoredUids = new Set(ignored.map((p) => p.metadata?.uid ?? ''));
    const stillTracked =
      expected.created.size > 0 ||
      pods.some(
        (p) =>
          hasFinalizer(p) &&
          !uncountedSet.has(p.metadata?.uid ?? '') &&
          !ignoredUids.has(p.metadata?.uid ?? '') &&
          !(failure?.reason === POD_FAILURE_POLICY_REASON && (p.metadata?.deletionTimestamp !== undefined || expected.deleted.has(p.metadata?.uid ?? ''))),
      );
    const complete =
      !failure &&
      !suspended &&
      activeCount === 0 &&
      (completions === undefined ? succeededTotal > 0 : succeededTotal >= completions);
    if (!stillTracked && activeCount === 0 && failure) {
      counted.conditions = setCondition(counted.conditions ?? [], newCondition('Failed', now, failure.reason, failure.message));
      this.event(job, 'Warning', failure.reason, failure.message);
    } else if (!stillTracked && complete) {
      counted.conditions = setCondition(counted.conditions ?? [], newCondition('Complete', now));
      counted.completionTime = rfc3339(now);
      if (completions !== undefined && succeededTotal > completions) {
        this.event(job, 'Warning', 'TooManySucceededPods', 'Too many succeeded pods running after completion count reached');
      }
      this.event(job, 'Normal', 'Completed', 'Job completed');
    }
    await this.writeStatus(job, counted);
  }

  private async writeStatus(job: KubeObject, status: JobStatus): Promise<KubeObject> {
    if (JSON.stringify(status) === JSON.stringify(job.status ?? {})) return job;
    return this.opts.client.update(JOBS, job.metadata?.namespace ?? '', { ...job, status }, 'status');
  }
}

export const jobControllerDescriptor: ControllerDescriptor = {
  name: 'job',
  requires: [{ group: 'batch', resource: 'jobs' }, { group: '', resource: 'pods' }],
  start(ctx) {
    const controller = new JobController({
      client: ctx.client,
      jobs: ctx.informers.informerFor(JOBS),
      pods: ctx.informers.informerFor(PODS),
      clock: ctx.clock,
      recorder: ctx.eventRecorder(COMPONENT),
      onError: ctx.onError,
    });
    controller.start(ctx.options.concurrentJobSyncs);
    return controller;
  },
};
