// The CronJob controller (kube-controller-manager's `cronjob`, controller v2): for each CronJob,
// reconcile `status.active` with its Jobs, then create the Job of the most recent activation
// that is due, as the concurrency policy, the starting deadline and `suspend` allow, and trim
// finished Jobs to the history limits. Job names are deterministic per activation, so a Job
// that already exists (a restart between create and status write) is never made twice.
import type { KubeObject } from '../../apimachinery/types.js';
import { rfc3339 } from '../../apimachinery/time.js';
import type { EventRecorder } from '../../client/events.js';
import type { Informer } from '../../client/informer.js';
import { keyOf, splitKey } from '../../client/informer.js';
import type { ApiClient } from '../../client/types.js';
import type { ControllerContext, ControllerDescriptor } from '../types.js';
import { controllerRef, controllerUid, CRONJOBS, isAlreadyExists, isNotFound, jobFinished, JOBS } from './common.js';
import { KeyedLoop } from '../keyed-loop.js';
import { isKnownTimeZone, jobNameFor, mostRecentScheduleTime, parseSchedule, type Schedule } from './schedule.js';

interface ObjectRef {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
}

interface CronJobSpec {
  schedule?: string;
  timeZone?: string;
  startingDeadlineSeconds?: number;
  concurrencyPolicy?: 'Allow' | 'Forbid' | 'Replace';
  suspend?: boolean;
  successfulJobsHistoryLimit?: number;
  failedJobsHistoryLimit?: number;
  jobTemplate?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Record<string, unknown> };
}

interface CronJobStatus {
  active?: ObjectRef[];
  lastScheduleTime?: string;
  lastSuccessfulTime?: string;
}

const COMPONENT = 'cronjob-controller';
/** Wake a little after the activation, so `now` is past it (Kubernetes adds 100 ms too). */
const WAKE_SLACK_MS = 100;

function specOf(cj: KubeObject): CronJobSpec {
  return (cj.spec ?? {}) as CronJobSpec;
}

function statusOf(cj: KubeObject): CronJobStatus {
  return (cj.status ?? {}) as CronJobStatus;
}

function parseTime(s: string | null | undefined): Date | undefined {
  if (!s) return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : new Date(t);
}

/** The Job of one activation: the template's labels, annotations and spec, controlled by the CronJob. */
export function jobFromTemplate(cj: KubeObject, scheduled: Date): KubeObject {
  const tpl = specOf(cj).jobTemplate ?? {};
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobNameFor(cj.metadata?.name ?? '', scheduled),
      namespace: cj.metadata?.namespace,
      labels: { ...(tpl.metadata?.labels ?? {}) },
      annotations: { ...(tpl.metadata?.annotations ?? {}) },
      ownerReferences: controllerRef(cj, 'batch/v1', 'CronJob'),
    },
    spec: structuredClone(tpl.spec ?? {}),
  };
}

function refOf(job: KubeObject): ObjectRef {
  const m = job.metadata ?? {};
  return { kind: 'Job', namespace: m.namespace, name: m.name, uid: m.uid, apiVersion: 'batch/v1', resourceVersion: m.resourceVersion };
}

/** RFC 1123 with a numeric zone, as Go's `time.RFC1123Z` writes UTC times. */
function rfc1123z(d: Date): string {
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${days[d.getUTCDay()]}, ${p(d.getUTCDate())} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
}

export interface CronJobControllerOptions {
  client: ApiClient;
  cronJobs: Informer;
  jobs: Informer;
  clock: ControllerContext['clock'];
  recorder: EventRecorder;
  onError: (err: unknown) => void;
}

export class CronJobController extends KeyedLoop {

  constructor(private readonly opts: CronJobControllerOptions) {
    super(opts.clock, 'cronjob', { maxRetryDelayMs: 60_000 });
    const enqueue = (cj: KubeObject): void => this.add(keyOf(cj));
    this.onStop(opts.cronJobs.addEventHandler({ onAdd: enqueue, onUpdate: (_o, n) => enqueue(n) }));
    // A Job's change concerns its controlling CronJob.
    const jobChanged = (job: KubeObject): void => {
      const uid = controllerUid(job, 'CronJob');
      if (!uid) return;
      const owner = job.metadata?.ownerReferences?.find((r) => r.uid === uid);
      if (owner && job.metadata?.namespace) this.add(`${job.metadata.namespace}/${owner.name}`);
    };
    this.onStop(opts.jobs.addEventHandler({ onAdd: jobChanged, onUpdate: (_o, n) => jobChanged(n), onDelete: jobChanged }));
  }

  start(workers: number): void {
    this.run((key) => this.sync(key), workers, this.opts.onError);
  }

  private event(cj: KubeObject, type: 'Normal' | 'Warning', reason: string, note: string, related?: KubeObject): void {
    this.opts.recorder.eventf(cj, related, type, reason, reason, note);
  }

  private async writeStatus(cj: KubeObject, status: CronJobStatus): Promise<KubeObject> {
    if (JSON.stringify(status) === JSON.stringify(statusOf(cj))) return cj;
    return this.opts.client.update(CRONJOBS, cj.metadata?.namespace ?? '', { ...cj, status }, 'status');
  }

  /** One pass over one CronJob. Throws to be retried with back-off. */
  async sync(key: string): Promise<void> {
    const { client, clock } = this.opts;
    const { namespace, name } = splitKey(key);
    let cj: KubeObject;
    try {
      cj = await client.get(CRONJOBS, namespace, name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    const uid = cj.metadata?.uid;
    const children = this.opts.jobs.list().filter((j) => j.metadata?.namespace === namespace && controllerUid(j, 'CronJob') === uid);
    cj = await this.writeStatus(cj, await this.reconcileActive(cj, children));
    if (cj.metadata?.deletionTimestamp) return;

    const spec = specOf(cj);
    const now = clock.now();
    const scheduledNext = await this.scheduleNext(cj, spec, now);
    if (scheduledNext) cj = scheduledNext.cj;
    await this.cleanupFinishedJobs(cj, children);
    if (scheduledNext?.wakeAt) this.wakeAfter(key, scheduledNext.wakeAt.getTime() - clock.now().getTime() + WAKE_SLACK_MS);
  }

  /** `status.active` and `lastSuccessfulTime` as the CronJob's Jobs say (Events for what changed). */
  private async reconcileActive(cj: KubeObject, children: KubeObject[]): Promise<CronJobStatus> {
    const status: CronJobStatus = structuredClone(statusOf(cj));
    let active = [...(status.active ?? [])];
    const seen = new Set<string>();
    for (const job of children) {
      const juid = job.metadata?.uid ?? '';
      seen.add(juid);
      const inActive = active.some((r) => r.uid === juid);
      const finished = jobFinished(job);
      if (!inActive && !finished) {
        this.event(cj, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${job.metadata?.name ?? ''}`, job);
      } else if (inActive && finished) {
        active = active.filter((r) => r.uid !== juid);
        this.event(cj, 'Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata?.name ?? ''}, status: ${finished.type}`, job);
      }
      if (finished?.type === 'Complete') {
        const done = parseTime((job.status as { completionTime?: string } | undefined)?.completionTime);
        const last = parseTime(status.lastSuccessfulTime);
        if (done && (!last || done > last)) status.lastSuccessfulTime = rfc3339(done);
      }
    }
    // Active Jobs the informer has not shown us: gone, or only not seen yet.
    for (const ref of [...active]) {
      if (seen.has(ref.uid ?? '')) continue;
      try {
        const job = await this.opts.client.get(JOBS, cj.metadata?.namespace ?? '', ref.name ?? '');
        if (job.metadata?.uid === ref.uid) continue;
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      this.event(cj, 'Normal', 'MissingJob', `Active job went missing: ${ref.name ?? ''}`);
      active = active.filter((r) => r !== ref);
    }
    if (active.length > 0) status.active = active;
    else delete status.active;
    return status;
  }

  /** Starts the due activation if allowed; returns the CronJob as written and when to look again. */
  private async scheduleNext(cj: KubeObject, spec: CronJobSpec, now: Date): Promise<{ cj: KubeObject; wakeAt?: Date } | undefined> {
    if (spec.timeZone !== undefined && spec.timeZone !== null && !isKnownTimeZone(spec.timeZone)) {
      this.event(cj, 'Warning', 'UnknownTimeZone', `invalid timeZone: ${JSON.stringify(spec.timeZone)}: unknown time zone ${spec.timeZone}`);
      return undefined;
    }
    if (spec.suspend === true) return undefined;
    const scheduleText = spec.schedule ?? '';
    let schedule: Schedule;
    try {
      schedule = parseSchedule(scheduleText, spec.timeZone ?? undefined);
    } catch (err) {
      this.event(cj, 'Warning', 'UnparseableSchedule', `unparseable schedule: ${JSON.stringify(scheduleText)} : ${(err as Error).message}`);
      return undefined;
    }
    if (scheduleText.includes('TZ')) {
      this.event(
        cj,
        'Warning',
        'UnsupportedSchedule',
        `CRON_TZ or TZ used in schedule ${JSON.stringify(scheduleText)} is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details`,
      );
    }
    const status = statusOf(cj);
    let earliest = parseTime(status.lastScheduleTime) ?? parseTime(cj.metadata?.creationTimestamp) ?? now;
    const deadline = spec.startingDeadlineSeconds;
    if (typeof deadline === 'number') {
      const cutoff = new Date(now.getTime() - deadline * 1000);
      if (cutoff > earliest) earliest = cutoff;
    }
    let recent;
    try {
      recent = earliest > now ? { missed: 0 } : mostRecentScheduleTime(schedule, earliest, now);
    } catch (err) {
      this.event(cj, 'Warning', 'InvalidSchedule', `invalid schedule: ${scheduleText} : ${(err as Error).message}`);
      return undefined;
    }
    const wakeAt = schedule.next(now);
    const scheduled = recent.time;
    if (!scheduled) return { cj, wakeAt };
    if (recent.missed > 100) {
      this.event(cj, 'Warning', 'TooManyMissedTimes', `too many missed start times: ${recent.missed}. Set or decrease .spec.startingDeadlineSeconds or check clock skew`);
    }
    if (typeof deadline === 'number' && scheduled.getTime() + deadline * 1000 < now.getTime()) {
      this.event(cj, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${rfc1123z(scheduled)}`);
      return { cj, wakeAt };
    }
    const jobName = jobNameFor(cj.metadata?.name ?? '', scheduled);
    const active = status.active ?? [];
    if (active.some((r) => r.name === jobName) || parseTime(status.lastScheduleTime)?.getTime() === scheduled.getTime()) return { cj, wakeAt };
    if (spec.concurrencyPolicy === 'Forbid' && active.length > 0) {
      this.event(cj, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return { cj, wakeAt };
    }
    const namespace = cj.metadata?.namespace ?? '';
    let remaining = active;
    if (spec.concurrencyPolicy === 'Replace') {
      for (const ref of active) {
        try {
          await this.opts.client.delete(JOBS, namespace, ref.name ?? '', { propagationPolicy: 'Background', preconditions: { uid: ref.uid } });
          this.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${ref.name ?? ''}`);
        } catch (err) {
          if (!isNotFound(err)) {
            this.event(cj, 'Warning', 'FailedDelete', `Deleted job: ${(err as Error).message}`);
            throw err;
          }
        }
        remaining = remaining.filter((r) => r !== ref);
      }
    }
    let created: KubeObject;
    try {
      created = await this.opts.client.create(JOBS, namespace, jobFromTemplate(cj, scheduled));
      this.event(cj, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata?.name ?? ''}`, created);
    } catch (err) {
      if (!isAlreadyExists(err)) {
        this.event(cj, 'Warning', 'FailedCreate', `Error creating job: ${(err as Error).message}`);
        throw err;
      }
      // Made before a restart or by an earlier pass whose status write was lost: take it as ours.
      created = await this.opts.client.get(JOBS, namespace, jobName);
      if (controllerUid(created, 'CronJob') !== cj.metadata?.uid) return { cj, wakeAt };
    }
    const next: CronJobStatus = { ...structuredClone(status), lastScheduleTime: rfc3339(scheduled) };
    const refs = remaining.filter((r) => r.uid !== created.metadata?.uid);
    if (!jobFinished(created)) refs.push(refOf(created));
    if (refs.length > 0) next.active = refs;
    else delete next.active;
    return { cj: await this.writeStatus(cj, next), wakeAt };
  }

  /** Deletes the oldest finished Jobs past the history limits. */
  private async cleanupFinishedJobs(cj: KubeObject, children: KubeObject[]): Promise<void> {
    const spec = specOf(cj);
    const byStart = (a: KubeObject, b: KubeObject): number => {
      const sa = parseTime((a.status as { startTime?: string } | undefined)?.startTime);
      const sb = parseTime((b.status as { startTime?: string } | undefined)?.startTime);
      if (!sa || !sb) return sa ? -1 : sb ? 1 : 0;
      return sa.getTime() - sb.getTime() || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
    };
    for (const [type, limit] of [
      ['Complete', spec.successfulJobsHistoryLimit],
      ['Failed', spec.failedJobsHistoryLimit],
    ] as const) {
      if (typeof limit !== 'number') continue;
      const finished = children.filter((j) => jobFinished(j)?.type === type && !j.metadata?.deletionTimestamp).sort(byStart);
      for (const job of finished.slice(0, Math.max(0, finished.length - limit))) {
        try {
          await this.opts.client.delete(JOBS, job.metadata?.namespace ?? '', job.metadata?.name ?? '', { propagationPolicy: 'Background' });
          this.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata?.name ?? ''}`);
        } catch (err) {
          if (!isNotFound(err)) {
            this.event(cj, 'Warning', 'FailedDelete', `Deleted job: ${(err as Error).message}`);
            throw err;
          }
        }
      }
    }
  }
}

export const cronJobControllerDescriptor: ControllerDescriptor = {
  name: 'cronjob',
  requires: [{ group: 'batch', resource: 'cronjobs' }, { group: 'batch', resource: 'jobs' }],
  start(ctx) {
    const controller = new CronJobController({
      client: ctx.client,
      cronJobs: ctx.informers.informerFor(CRONJOBS),
      jobs: ctx.informers.informerFor(JOBS),
      clock: ctx.clock,
      recorder: ctx.eventRecorder(COMPONENT),
      onError: ctx.onError,
    });
    controller.start(ctx.options.concurrentCronJobSyncs);
    return controller;
  },
};
