// The audit metrics, named as kube-apiserver names them; kept in a registry of their own that
// the server's /metrics merges.
import { Counter, Registry } from 'prom-client';
import type { AuditLevel } from './types.js';

export class AuditMetrics {
  readonly registry = new Registry();
  private readonly events: Counter<string>;
  private readonly errors: Counter<string>;
  private readonly levels: Counter<string>;
  private readonly rejected: Counter<string>;

  constructor() {
    this.events = new Counter({ name: 'apiserver_audit_event_total', help: 'Counter of audit events generated and sent to the audit backend.', registers: [this.registry] });
    this.errors = new Counter({
      name: 'apiserver_audit_error_total',
      help: 'Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.',
      labelNames: ['plugin'],
      registers: [this.registry],
    });
    this.levels = new Counter({ name: 'apiserver_audit_level_total', help: 'Counter of policy levels for audit events (1 per request).', labelNames: ['level'], registers: [this.registry] });
    this.rejected = new Counter({
      name: 'apiserver_audit_requests_rejected_total',
      help: 'Counter of apiserver requests rejected due to an error in audit logging backend.',
      registers: [this.registry],
    });
  }

  event(): void {
    this.events.inc();
  }

  /** `count` events the plugin failed to deliver. */
  error(plugin: string, count: number): void {
    if (count > 0) this.errors.inc({ plugin }, count);
  }

  level(level: AuditLevel): void {
    this.levels.inc({ level });
  }

  rejectedRequest(): void {
    this.rejected.inc();
  }

  /** For tests and the benchmark: a counter's current value. */
  async value(name: 'event' | 'error' | 'rejected', plugin?: string): Promise<number> {
    const counter = name === 'event' ? this.events : name === 'error' ? this.errors : this.rejected;
    const m = await counter.get();
    return m.values.filter((v) => plugin === undefined || v.labels.plugin === plugin).reduce((a, v) => a + v.value, 0);
  }
}
