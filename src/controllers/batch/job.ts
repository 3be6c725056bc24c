// The Job controller (kube-controller-manager's `job`): runs the Job's pods as
// `parallelism`/`completions`/`completionMode` ask, counts finished pods through the
// tracking finalizer (uid into `status.uncountedTerminatedPods`, finalizer removed, then
// counted), and finishes the Job as Complete, or as Failed past `backoffLimit` or
// `activeDeadlineSeconds`. `suspend` removes the active pods. There is no kubelet here: pods
// move only when someone writes their status, and the controller follows.
import type { KubeObject } from '../../apimachinery/types.js';
import { rfc3339 } from '../../apimachinery/time.js';
import type { EventRecorder } from '../../client/events.js';
import type { Informer } from '../../client/informer.js';
import { keyOf, splitKey } from '../../client/informer.js';
import type { ApiClient } from '../../client/types.js';
import { longDomainKey } from '../../naming/index.js';
import type { ControllerContext, ControllerDescriptor } from '../types.js';
import { conditionsOf, controllerRef, controllerUid, isNotFound, jobFinished, JOBS, PODS, type Condition } from './common.js';
import { KeyedLoop } from '../keyed-loop.js';

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

/** A pod counts as failed when it failed, or was deleted before it succeeded. */
function podFailed(pod: KubeObject): boolean {
  return phaseOf(pod) === 'Failed' || (pod.metadata?.deletionTimestamp !== undefined && phaseOf(pod) !== 'Succeeded');
}

function podFinished(pod: KubeObject): boolean {
  return phaseOf(pod) === 'Succeeded' || podFailed(pod);
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
  private readonly expect = new Map<string, { created: Set<string>; deleted: Set<string>; released: Set<string> }>();

  private expectations(uid: string): { created: Set<string>; deleted: Set<string>; released: Set<string> } {
    let e = this.expect.get(uid);
    if (!e) this.expect.set(uid, (e = { created: new Set(), deleted: new Set(), released: new Set() }));
    return e;
  }

  constructor(private readonly opts: JobControllerOptions) {
    super(opts.clock, 'job', { maxRetryDelayMs: 60_000 });
    const enqueue = (job: KubeObject): void => this.add(keyOf(job));
    this.onStop(opts.jobs.addEventHandler({ onAdd: enqueue, onUpdate: (_o, n) => enqueue(n), onDelete: enqueue }));
    const podChanged = (pod: KubeObject): void => {
      const ref = pod.metadata?.ownerReferences?.find((r) => r.controller === true && r.kind === 'Job');
      if (ref && pod.metadata?.namespace) this.add(`${pod.metadata.namespace}/${ref.name}`);
    };
    this.onStop(opts.pods.addEventHandler({ onAdd: podChanged, onUpdate: (_o, n) => podChanged(n), onDelete: podChanged }));
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

  /** One pass over one Job. Throws to be retried with back-off. */
  async sync(key: string): Promise<void> {
    const { client, clock } = this.opts;
    const { namespace, name } = splitKey(key);
    let job: KubeObject;
    try {
      job = await client.get(JOBS, namespace, name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      // The Job is gone: its pods must not stay held by the tracking finalizer.
      const orphans = this.opts.pods.list().filter(
        (p) => p.metadata?.namespace === namespace && hasFinalizer(p) && p.metadata?.ownerReferences?.some((r) => r.controller === true && r.kind === 'Job' && r.name === name),
      );
      await this.removeFinalizers(orphans);
      return;
    }
    const uid = job.metadata?.uid ?? '';
    const expected = this.expectations(uid);
    const listed = this.opts.pods.list().filter((p) => p.metadata?.namespace === namespace && controllerUid(p, 'Job') === uid);
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
    const newlyFinished = pods.filter((p) => hasFinalizer(p) && podFinished(p) && !known.has(p.metadata?.uid ?? ''));
    const completed = indexed && completions !== undefined ? parseIndexes(status.completedIndexes, completions) : new Set<number>();
    let newFailures = 0;
    for (const pod of newlyFinished) {
      const puid = pod.metadata?.uid ?? '';
      if (phaseOf(pod) === 'Succeeded') {
        uncounted.succeeded.push(puid);
        if (indexed && completions !== undefined) {
          const ix = podIndex(pod, completions);
          if (ix !== undefined) completed.add(ix);
        }
      } else {
        uncounted.failed.push(puid);
        newFailures++;
      }
    }
    const record = this.backoff.get(uid) ?? { failures: 0, lastFailure: 0 };
    // Pods removed by a suspension are no reason to pace the pods of the resumed Job.
    if (suspended) this.backoff.delete(uid);
    else if (newFailures > 0) this.backoff.set(uid, { failures: record.failures + newFailures, lastFailure: now.getTime() });
    else if (newlyFinished.length > 0) this.backoff.delete(uid);

    const active = pods.filter((p) => !podFinished(p) && !expected.deleted.has(p.metadata?.uid ?? ''));
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

    // Failure: past the back-off limit (restarts count under OnFailure) or the deadline.
    let failure: { reason: string; message: string } | undefined;
    const backoffLimit = spec.backoffLimit ?? 6;
    const restartPolicy = (spec.template?.spec as { restartPolicy?: string } | undefined)?.restartPolicy;
    const restarts = active.reduce((sum, p) => {
      const s = p.status as { containerStatuses?: { restartCount?: number }[]; initContainerStatuses?: { restartCount?: number }[] } | undefined;
      return sum + [...(s?.containerStatuses ?? []), ...(s?.initContainerStatuses ?? [])].reduce((n, c) => n + (c.restartCount ?? 0), 0);
    }, 0);
    const pastOnFailure = restartPolicy === 'OnFailure' && (backoffLimit === 0 ? restarts > 0 : restarts >= backoffLimit);
    if (failedTotal > backoffLimit || pastOnFailure) {
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
      pods.filter((p) => hasFinalizer(p) && uncountedSet.has(p.metadata?.uid ?? '')),
      expected.released,
    );
    const counted: JobStatus = structuredClone((job.status ?? {}) as JobStatus);
    counted.succeeded = succeededTotal;
    counted.failed = failedTotal;
    counted.uncountedTerminatedPods = {};

    // Finished only once no pod of the Job is left to count.
    const stillTracked = expected.created.size > 0 || pods.some((p) => hasFinalizer(p) && !uncountedSet.has(p.metadata?.uid ?? ''));
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
