// API priority and fairness for the server: the flag, the controller with its metrics, the
// bootstrap configuration kept once a minute, and the debug dumps. The server's filter
// (server/filters/priority-and-fairness.ts) asks the controller about every request.
import { realClock, type Clock } from '../apimachinery/clock.js';
import type { FeatureGate } from '../apimachinery/features.js';
import type { FlagDefinition, ParsedFlags } from '../apimachinery/flags.js';
import type { ApiClient } from '../client/types.js';
import type { Registry } from 'prom-client';
import { FlowController } from './controller.js';
import { ensureBootstrapConfiguration } from './ensure.js';
import { FlowControlMetrics } from './metrics.js';

export { FlowController } from './controller.js';
export type { Classification, Decision } from './controller.js';

export const flowControlFlagDefinitions: FlagDefinition[] = [
  {
    name: 'enable-priority-and-fairness',
    type: 'boolean',
    default: true,
    usage: 'If true and the APIPriorityAndFairness feature gate is enabled, replace the max-in-flight handler with an enhanced one that queues and dispatches with priority and fairness',
  },
];

/** 1.27: the flag and the gate must both be on. */
export function priorityAndFairnessEnabled(flags: ParsedFlags, features: FeatureGate): boolean {
  return flags.boolean('enable-priority-and-fairness') !== false && features.enabled('APIPriorityAndFairness');
}

/** How often the bootstrap configuration is checked again after start. */
export const ENSURE_INTERVAL_MS = 60_000;

export const DEBUG_PATHS = {
  priorityLevels: '/debug/api_priority_and_fairness/dump_priority_levels',
  queues: '/debug/api_priority_and_fairness/dump_queues',
  requests: '/debug/api_priority_and_fairness/dump_requests',
} as const;

export interface PriorityAndFairnessOptions {
  maxRequestsInFlight: number;
  maxMutatingRequestsInFlight: number;
  requestTimeoutMs: number;
  /** Schedules the periodic check of the bootstrap configuration (the controllers' clock). */
  clock: Clock;
  /** Times requests waiting in queues and condition changes (the wall clock by default, so a stepped test clock never times out requests). */
  requestClock?: Clock;
  registry: Registry;
  log?: (line: string) => void;
}

/** Throws, naming the flags, when the limits cannot give any level a seat. */
function serverConcurrencyLimit(o: PriorityAndFairnessOptions): number {
  if (!Number.isSafeInteger(o.maxRequestsInFlight) || o.maxRequestsInFlight < 0) throw new Error(`--max-requests-inflight: can not be negative value, not ${o.maxRequestsInFlight}`);
  if (!Number.isSafeInteger(o.maxMutatingRequestsInFlight) || o.maxMutatingRequestsInFlight < 0) {
    throw new Error(`--max-mutating-requests-inflight: can not be negative value, not ${o.maxMutatingRequestsInFlight}`);
  }
  const sum = o.maxRequestsInFlight + o.maxMutatingRequestsInFlight;
  if (sum <= 0) throw new Error('--max-requests-inflight, --max-mutating-requests-inflight: their sum must be positive with priority and fairness on (--enable-priority-and-fairness)');
  return sum;
}

export class PriorityAndFairness {
  readonly controller: FlowController;
  private stopController: (() => Promise<void>) | undefined;
  private cancelEnsure: (() => void) | undefined;
  private stopped = false;

  constructor(private readonly opts: PriorityAndFairnessOptions) {
    this.controller = new FlowController({
      serverConcurrencyLimit: serverConcurrencyLimit(opts),
      requestWaitLimitMs: Math.max(1, opts.requestTimeoutMs / 4),
      clock: opts.requestClock ?? realClock,
      metrics: new FlowControlMetrics(opts.registry),
      ...(opts.log ? { log: opts.log } : {}),
    });
  }

  /** Creates or repairs the bootstrap objects now, and again every minute. */
  async ensureConfiguration(client: ApiClient): Promise<void> {
    await ensureBootstrapConfiguration(client);
    const again = (): void => {
      if (this.stopped) return;
      this.cancelEnsure = this.opts.clock.schedule(ENSURE_INTERVAL_MS, () => {
        ensureBootstrapConfiguration(client)
          .catch((err: unknown) => this.opts.log?.(`priority and fairness: ${err instanceof Error ? err.message : String(err)}`))
          .finally(again);
      });
    };
    again();
  }

  /** Follows the stored configuration; resolves when it is applied. */
  async follow(client: ApiClient): Promise<void> {
    if (this.stopped) return;
    this.stopController = await this.controller.run(client);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelEnsure?.();
    await this.stopController?.();
  }

  /** The debug dumps, text tables as kube-apiserver writes them; undefined for other paths. */
  debug(method: string, path: string, query: URLSearchParams): { code: number; contentType: string; body: string } | undefined {
    if (method !== 'GET') return undefined;
    let body: string;
    if (path === DEBUG_PATHS.priorityLevels) body = this.controller.dumpPriorityLevels();
    else if (path === DEBUG_PATHS.queues) body = this.controller.dumpQueues();
    else if (path === DEBUG_PATHS.requests) body = this.controller.dumpRequests((query.get('includeRequestDetails') ?? '').length > 0);
    else return undefined;
    return { code: 200, contentType: 'text/plain; charset=utf-8', body };
  }
}
