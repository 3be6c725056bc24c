// The `apiserver_flowcontrol_*` metrics, with kube-apiserver 1.27's names, help texts,
// labels and buckets, registered on the registry the server gives.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { LevelObserver, RejectReason } from './queueset.js';

const DURATION_BUCKETS = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30];

export class FlowControlMetrics {
  private readonly rejectedTotal: Counter<string>;
  private readonly dispatchedTotal: Counter<string>;
  private readonly inqueue: Gauge<string>;
  private readonly executing: Gauge<string>;
  private readonly waitDuration: Histogram<string>;
  private readonly executionSeconds: Histogram<string>;
  private readonly concurrencyLimit: Gauge<string>;
  private readonly nominalLimit: Gauge<string>;
  private readonly lowerLimit: Gauge<string>;
  private readonly upperLimit: Gauge<string>;
  private readonly currentLimit: Gauge<string>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.rejectedTotal = new Counter({ name: 'apiserver_flowcontrol_rejected_requests_total', help: 'Number of requests rejected by API Priority and Fairness subsystem', labelNames: ['priority_level', 'flow_schema', 'reason'], registers });
    this.dispatchedTotal = new Counter({ name: 'apiserver_flowcontrol_dispatched_requests_total', help: 'Number of requests executed by API Priority and Fairness subsystem', labelNames: ['priority_level', 'flow_schema'], registers });
    this.inqueue = new Gauge({ name: 'apiserver_flowcontrol_current_inqueue_requests', help: 'Number of requests currently pending in queues of the API Priority and Fairness subsystem', labelNames: ['priority_level', 'flow_schema'], registers });
    this.executing = new Gauge({
      name: 'apiserver_flowcontrol_current_executing_requests',
      help: 'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem',
      labelNames: ['priority_level', 'flow_schema'],
      registers,
    });
    this.waitDuration = new Histogram({ name: 'apiserver_flowcontrol_request_wait_duration_seconds', help: 'Length of time a request spent waiting in its queue', labelNames: ['priority_level', 'flow_schema', 'execute'], buckets: DURATION_BUCKETS, registers });
    this.executionSeconds = new Histogram({
      name: 'apiserver_flowcontrol_request_execution_seconds',
      help: 'Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution in the API Priority and Fairness subsystem',
      labelNames: ['priority_level', 'flow_schema', 'type'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.concurrencyLimit = new Gauge({ name: 'apiserver_flowcontrol_request_concurrency_limit', help: 'Shared concurrency limit in the API Priority and Fairness subsystem', labelNames: ['priority_level'], registers });
    this.nominalLimit = new Gauge({ name: 'apiserver_flowcontrol_nominal_limit_seats', help: 'Nominal number of execution seats configured for each priority level', labelNames: ['priority_level'], registers });
    this.lowerLimit = new Gauge({ name: 'apiserver_flowcontrol_lower_limit_seats', help: 'Configured lower bound on number of execution seats available to each priority level', labelNames: ['priority_level'], registers });
    this.upperLimit = new Gauge({ name: 'apiserver_flowcontrol_upper_limit_seats', help: 'Configured upper bound on number of execution seats available to each priority level', labelNames: ['priority_level'], registers });
    this.currentLimit = new Gauge({ name: 'apiserver_flowcontrol_current_limit_seats', help: 'current derived number of execution seats available to each priority level', labelNames: ['priority_level'], registers });
  }

  /** A level's configured seats: nominal, the least it keeps (nominal less lendable) and the most it may hold. */
  setLimits(level: string, nominal: number, lower: number, upper: number): void {
    this.concurrencyLimit.set({ priority_level: level }, nominal);
    this.nominalLimit.set({ priority_level: level }, nominal);
    this.currentLimit.set({ priority_level: level }, nominal);
    this.lowerLimit.set({ priority_level: level }, lower);
    this.upperLimit.set({ priority_level: level }, upper);
  }

  /** A level that no longer exists stops being reported. */
  forgetLevel(level: string): void {
    for (const g of [this.concurrencyLimit, this.nominalLimit, this.currentLimit, this.lowerLimit, this.upperLimit]) g.remove({ priority_level: level });
  }

  observeExecution(level: string, flowSchema: string, seconds: number): void {
    this.executionSeconds.observe({ priority_level: level, flow_schema: flowSchema, type: 'regular' }, seconds);
  }

  /** Exempt requests are counted as dispatched and executing too, as 1.27 does. */
  observer(level: string): LevelObserver {
    return {
      waiting: (fs, delta) => this.inqueue.inc({ priority_level: level, flow_schema: fs }, delta),
      executing: (fs, delta) => this.executing.inc({ priority_level: level, flow_schema: fs }, delta),
      rejected: (fs, reason: RejectReason) => {
        this.rejectedTotal.inc({ priority_level: level, flow_schema: fs, reason });
      },
      dispatched: (fs, waited) => {
        this.dispatchedTotal.inc({ priority_level: level, flow_schema: fs });
        this.waitDuration.observe({ priority_level: level, flow_schema: fs, execute: 'true' }, waited);
      },
    };
  }
}
