// The configuration controller of API priority and fairness: follows the stored FlowSchemas
// and PriorityLevelConfigurations, derives each Limited level's seats from the server's
// concurrency limit, keeps the FlowSchemas' `Dangling` condition, and classifies and admits
// requests. Missing mandatory objects are imagined until they are stored again, so every
// request always has a schema and a level.
import type { Clock } from '../apimachinery/clock.js';
import { isApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import { Informer } from '../client/informer.js';
import type { ApiClient } from '../client/types.js';
import { mandatoryFlowSchemas, mandatoryPriorityLevels } from './bootstrap.js';
import { row, tabulate } from './debug.js';
import { flowSchemaResource, priorityLevelResource } from './ensure.js';
import type { FlowControlMetrics } from './metrics.js';
import { parseFlowSchema, parsePriorityLevel } from './parse.js';
import { PriorityLevelQueues, SeatPool, type Admission, type LevelLimits, type RejectReason, type Release } from './queueset.js';
import { classify, compareFlowSchemas, flowDistinguisher } from './rules.js';
import { CATCH_ALL, EXEMPT, type FlowSchema, type PriorityLevel, type RequestDigest } from './types.js';
import { abortController } from '../apimachinery/abort.js';

export interface FlowControlOptions {
  /** `--max-requests-inflight` plus `--max-mutating-requests-inflight`. */
  serverConcurrencyLimit: number;
  /** How long a request may wait in a queue (kube-apiserver: the request timeout / 4). */
  requestWaitLimitMs: number;
  clock: Clock;
  metrics: FlowControlMetrics;
  log?: (line: string) => void;
}

export interface Classification {
  flowSchema: FlowSchema;
  priorityLevel: PriorityLevel;
  distinguisher: string;
}

export type Decision = { classification: Classification } & ({ execute: Release } | { reject: RejectReason });

interface LevelState {
  level: PriorityLevel;
  /** undefined for Exempt levels. */
  queues?: PriorityLevelQueues;
}

/** One `Dangling` condition a FlowSchema's status should get. */
export interface DanglingUpdate {
  name: string;
  condition: { type: 'Dangling'; status: 'True' | 'False'; lastTransitionTime: string; reason: string; message: string };
}

/** `ceil(serverCL * shares / sumShares)`, its lendable part and what it may borrow (1.27's rounding). */
export function levelLimits(serverCL: number, shares: number, shareSum: number, lendablePercent?: number, borrowingLimitPercent?: number): LevelLimits {
  const nominal = Math.ceil((serverCL * shares) / shareSum);
  const lendable = Math.round((nominal * (lendablePercent ?? 0)) / 100);
  const borrowing = borrowingLimitPercent === undefined ? serverCL : Math.round((nominal * borrowingLimitPercent) / 100);
  return { nominal, lendable, max: nominal + borrowing };
}

function sameQueuing(a: PriorityLevel, b: PriorityLevel): boolean {
  return JSON.stringify(a.spec.limited?.limitResponse) === JSON.stringify(b.spec.limited?.limitResponse);
}

function parsedMandatory<T>(objs: KubeObject[], parse: (o: KubeObject) => { ok: T } | { error: string }): Map<string, T> {
  const out = new Map<string, T>();
  for (const o of objs) {
    const p = parse(o);
    if ('ok' in p) out.set(o.metadata!.name!, p.ok);
  }
  return out;
}

export class FlowController {
  private schemas: FlowSchema[] = [];
  private levels = new Map<string, LevelState>();
  private readonly pool = new SeatPool();
  private readonly exemptObservers = new Map<string, ReturnType<FlowControlMetrics['observer']>>();

  constructor(private readonly opts: FlowControlOptions) {
    this.configure([], []);
  }

  /** Rebuilds the schemas and levels from the stored objects; returns the status updates due. */
  configure(fsObjects: readonly KubeObject[], plObjects: readonly KubeObject[]): DanglingUpdate[] {
    const log = this.opts.log ?? (() => {});
    const levels = new Map<string, PriorityLevel>();
    for (const o of plObjects) {
      const p = parsePriorityLevel(o);
      if ('error' in p) log(`ignoring PriorityLevelConfiguration ${o.metadata?.name ?? ''}: ${p.error}`);
      else levels.set(p.ok.name, p.ok);
    }
    for (const [name, pl] of parsedMandatory(mandatoryPriorityLevels(), parsePriorityLevel)) if (!levels.has(name)) levels.set(name, pl);

    const updates: DanglingUpdate[] = [];
    const schemas: FlowSchema[] = [];
    for (const o of fsObjects) {
      const p = parseFlowSchema(o);
      if ('error' in p) {
        log(`ignoring FlowSchema ${o.metadata?.name ?? ''}: ${p.error}`);
        continue;
      }
      const found = levels.has(p.ok.spec.priorityLevelConfiguration.name);
      const update = this.danglingUpdate(o, p.ok.spec.priorityLevelConfiguration.name, !found);
      if (update) updates.push(update);
      if (found) schemas.push(p.ok);
    }
    schemas.sort(compareFlowSchemas);
    const mandatory = parsedMandatory(mandatoryFlowSchemas(), parseFlowSchema);
    if (!schemas.some((s) => s.name === EXEMPT)) schemas.unshift(mandatory.get(EXEMPT)!);
    if (!schemas.some((s) => s.name === CATCH_ALL)) schemas.push(mandatory.get(CATCH_ALL)!);
    this.schemas = schemas;

    let shareSum = 0;
    for (const pl of levels.values()) shareSum += pl.spec.limited?.nominalConcurrencyShares ?? 0;
    const next = new Map<string, LevelState>();
    for (const pl of levels.values()) {
      const old = this.levels.get(pl.name);
      if (!pl.spec.limited) {
        this.old(old);
        next.set(pl.name, { level: pl });
        continue;
      }
      const l = pl.spec.limited;
      const limits = levelLimits(this.opts.serverConcurrencyLimit, l.nominalConcurrencyShares, shareSum, l.lendablePercent, l.borrowingLimitPercent);
      this.opts.metrics.setLimits(pl.name, limits.nominal, limits.nominal - limits.lendable, limits.max);
      if (old?.queues && sameQueuing(old.level, pl)) {
        old.queues.limits = limits;
        next.set(pl.name, { level: pl, queues: old.queues });
        continue;
      }
      this.old(old);
      const queues = new PriorityLevelQueues(pl.name, limits, l.limitResponse.queuing, this.pool, this.opts.clock, this.opts.requestWaitLimitMs, this.opts.metrics.observer(pl.name));
      this.pool.add(queues);
      next.set(pl.name, { level: pl, queues });
    }
    for (const [name, state] of this.levels) {
      if (next.has(name)) continue;
      this.old(state);
      this.opts.metrics.forgetLevel(name);
    }
    this.levels = next;
    this.pool.dispatch();
    return updates;
  }

  /** A level being replaced keeps serving what it holds, then leaves the pool. */
  private old(state: LevelState | undefined): void {
    if (state?.queues) this.pool.retire(state.queues);
  }

  private danglingUpdate(o: KubeObject, level: string, dangling: boolean): DanglingUpdate | undefined {
    const conditions = (o.status as { conditions?: unknown } | undefined)?.conditions;
    const current = Array.isArray(conditions) ? (conditions as Record<string, unknown>[]).find((c) => c?.type === 'Dangling') : undefined;
    const status = dangling ? 'True' : 'False';
    const reason = dangling ? 'NotFound' : 'Found';
    const message = dangling
      ? `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(level)} but there is no such object`
      : `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(level)} and it exists`;
    if (current?.status === status && current.reason === reason && current.message === message) return undefined;
    const lastTransitionTime = this.opts.clock.now().toISOString().replace(/\.\d+Z$/, 'Z');
    return { name: o.metadata?.name ?? '', condition: { type: 'Dangling', status, lastTransitionTime, reason, message } };
  }

  /** The schema, level and flow of a request. */
  classify(digest: RequestDigest): Classification {
    const fs = classify(digest, this.schemas) ?? this.schemas.find((s) => s.name === CATCH_ALL)!;
    const state = this.levels.get(fs.spec.priorityLevelConfiguration.name)!;
    const queues = state.level.spec.limited?.limitResponse.queuing?.queues ?? 0;
    return { flowSchema: fs, priorityLevel: state.level, distinguisher: queues > 1 ? flowDistinguisher(digest, fs) : '' };
  }

  /** Classifies, then executes, queues or rejects the request; `execute` must be called once it is done. */
  admit(digest: RequestDigest, cancel: AbortSignal | (() => AbortSignal)): Decision | Promise<Decision> {
    const classification = this.classify(digest);
    const { flowSchema, priorityLevel, distinguisher } = classification;
    const queues = this.levels.get(priorityLevel.name)?.queues;
    if (!queues) {
      let observer = this.exemptObservers.get(priorityLevel.name);
      if (!observer) this.exemptObservers.set(priorityLevel.name, (observer = this.opts.metrics.observer(priorityLevel.name)));
      const o = observer;
      o.dispatched(flowSchema.name, 0);
      o.executing(flowSchema.name, 1);
      let done = false;
      return {
        classification,
        execute: () => {
          if (!done) o.executing(flowSchema.name, -1);
          done = true;
        },
      };
    }
    const admission = queues.admit({ flowSchema: flowSchema.name, distinguisher, arrived: this.opts.clock.now(), digest }, cancel);
    const decide = (a: Admission): Decision => ('reject' in a ? { classification, reject: a.reject } : { classification, execute: a.execute });
    return admission instanceof Promise ? admission.then(decide) : decide(admission);
  }

  observeExecution(level: string, flowSchema: string, seconds: number): void {
    this.opts.metrics.observeExecution(level, flowSchema, seconds);
  }

  /** `/debug/api_priority_and_fairness/dump_priority_levels` */
  dumpPriorityLevels(): string {
    const lines = [row('PriorityLevelName', 'ActiveQueues', 'IsIdle', 'IsQuiescing', 'WaitingRequests', 'ExecutingRequests', 'DispatchedRequests', 'RejectedRequests', 'TimedoutRequests', 'CancelledRequests')];
    for (const name of [...this.levels.keys()].sort()) {
      const { queues } = this.levels.get(name)!;
      if (!queues) {
        lines.push(row(name, ...Array<string>(9).fill('<none>')));
        continue;
      }
      const active = queues.dumpQueues().filter((q) => q.waiting.length > 0).length;
      const c = queues.counters;
      lines.push(row(name, active, queues.isIdle(), false, queues.waiting, queues.executingSeats, c.dispatched, c.rejected, c.timedOut, c.cancelled));
    }
    return tabulate(lines);
  }

  /** `/debug/api_priority_and_fairness/dump_queues` */
  dumpQueues(): string {
    const lines = [row('PriorityLevelName', 'Index', 'PendingRequests', 'ExecutingRequests', 'SeatsInUse', 'NextDispatchR', 'InitialSeatsSum', 'MaxSeatsSum', 'TotalWorkSum')];
    for (const name of [...this.levels.keys()].sort()) {
      const { queues } = this.levels.get(name)!;
      if (!queues) {
        lines.push(row(name, ...Array<string>(8).fill('<none>')));
        continue;
      }
      queues.dumpQueues().forEach((q, i) => lines.push(row(name, i, q.waiting.length, q.executing, q.executing, '0.00000000ss', q.waiting.length, q.waiting.length, '0.00000000ss')));
    }
    return tabulate(lines);
  }

  /** `/debug/api_priority_and_fairness/dump_requests` (`?includeRequestDetails=1` adds who and what). */
  dumpRequests(details: boolean): string {
    let header = row('PriorityLevelName', 'FlowSchemaName', 'QueueIndex', 'RequestIndexInQueue', 'FlowDistingsher', 'ArriveTime', 'InitialSeats', 'FinalSeats', 'AdditionalLatency');
    if (details) header += ',\t' + row('UserName', 'Verb', 'APIPath', 'Namespace', 'Name', 'APIVersion', 'Resource', 'SubResource');
    const lines = [header];
    for (const name of [...this.levels.keys()].sort()) {
      const { queues } = this.levels.get(name)!;
      if (!queues) continue;
      queues.dumpQueues().forEach((q, qi) =>
        q.waiting.forEach((r, ri) => {
          let line = row(name, r.flowSchema, qi, ri, r.distinguisher, r.arrived.toISOString(), 1, 0, '0s');
          if (details) {
            const i = r.digest.info;
            const gv = i.apiGroup ? `${i.apiGroup}/${i.apiVersion}` : i.apiVersion;
            line += ',\t' + row(r.digest.user.username, i.verb, i.path, i.namespace, i.name, gv, i.resource, i.subresource);
          }
          lines.push(line);
        }),
      );
    }
    return tabulate(lines);
  }

  /**
   * Follows the stored configuration through `client` and keeps the `Dangling` conditions;
   * resolves once the first lists are applied. Returns the function that stops it.
   */
  async run(client: ApiClient): Promise<() => Promise<void>> {
    const log = this.opts.log ?? (() => {});
    const onError = (err: unknown): void => log(`priority and fairness: ${err instanceof Error ? err.message : String(err)}`);
    const fs = new Informer(client, flowSchemaResource(), { onError });
    const pl = new Informer(client, priorityLevelResource(), { onError });
    const stop = new AbortController();
    let pending = false;
    // Each event reconfigures, and until a written condition comes back through the watch the
    // next pass asks for it again (at first start, a write per schema per event): a write
    // already on its way is not sent twice.
    const writing = new Map<string, string>();
    const write = (u: DanglingUpdate): void => {
      const what = `${u.condition.status}\0${u.condition.reason}\0${u.condition.message}`;
      if (writing.get(u.name) === what) return;
      writing.set(u.name, what);
      void this.writeCondition(client, fs, u)
        .catch(onError)
        .finally(() => {
          if (writing.get(u.name) === what) writing.delete(u.name);
        });
    };
    const sync = (): void => {
      if (pending || stop.signal.aborted || !fs.hasSynced() || !pl.hasSynced()) return;
      pending = true;
      queueMicrotask(() => {
        pending = false;
        if (stop.signal.aborted) return;
        const updates = this.configure(fs.list(), pl.list());
        for (const u of updates) write(u);
      });
    };
    const handler = { onAdd: sync, onUpdate: sync, onDelete: sync };
    fs.addEventHandler(handler);
    pl.addEventHandler(handler);
    fs.start();
    pl.start();
    await Promise.all([fs.waitForSync(), pl.waitForSync()]);
    sync();
    return async () => {
      abortController(stop);
      await Promise.all([fs.stop(), pl.stop()]);
    };
  }

  private async writeCondition(client: ApiClient, fs: Informer, u: DanglingUpdate): Promise<void> {
    const current = fs.get('', u.name);
    if (!current) return;
    const conditions = (current.status as { conditions?: unknown } | undefined)?.conditions;
    const others = Array.isArray(conditions) ? conditions.filter((c: { type?: unknown } | null) => c?.type !== 'Dangling') : [];
    try {
      await client.patch(flowSchemaResource(), '', u.name, { status: { conditions: [...others, u.condition] } }, 'status');
    } catch (err) {
      // Deleted meanwhile: nothing to keep.
      if (!isApiError(err) || err.status.code !== 404) throw err;
    }
  }
}
