// Audit backends and the wrappers the `--audit-<plugin>-mode` flags choose: blocking (the
// request waits for the write; failures only counted), blocking-strict (a failure to record
// the first stage fails the request) and batch (a bounded buffer, drained in batches;
// events that do not fit are dropped and counted, so a slow backend never holds a request).
import type { Clock } from '../apimachinery/clock.js';
import { encodeEvent, legacyEventString } from './event.js';
import type { AuditMetrics } from './metrics.js';
import type { AuditEvent } from './types.js';
import { TokenBucket } from '../apimachinery/token-bucket.js';

/** One event as it was when a stage completed; its JSON is computed once, on first use. */
export class EventSnapshot {
  private json: string | undefined;
  constructor(readonly event: AuditEvent) {}

  toJSON(apiVersion?: string): string {
    return (this.json ??= encodeEvent(this.event, apiVersion));
  }

  legacy(): string {
    return legacyEventString(this.event);
  }
}

export interface AuditBackend {
  /** The plugin name errors are counted under. */
  readonly name: string;
  /**
   * True when the backend is done with the events before `processEvents` returns (a blocking
   * log): it may be handed the live event, without a copy.
   */
  readonly consumesAtOnce?: boolean;
  /**
   * Takes events; false (or a promise of false) when they could not be recorded. A backend
   * that must wait (a blocking webhook) returns a promise.
   */
  processEvents(events: EventSnapshot[]): boolean | Promise<boolean>;
  /** Delivers what is buffered and stops. */
  shutdown(): Promise<void>;
}

export type BackendMode = 'blocking' | 'blocking-strict' | 'batch';
export const BACKEND_MODES: readonly BackendMode[] = ['batch', 'blocking', 'blocking-strict'];

export interface BatchConfig {
  bufferSize: number;
  maxBatchSize: number;
  maxBatchWaitMs: number;
  throttleEnable: boolean;
  throttleQPS: number;
  throttleBurst: number;
  /** Deliver batches without waiting for the previous one (the webhook); the log writes in order. */
  asyncDelegate: boolean;
}

/** Sends every event to each backend; success only when all succeed. */
export class UnionBackend implements AuditBackend {
  readonly name = 'union';
  readonly consumesAtOnce: boolean;
  constructor(private readonly backends: readonly AuditBackend[]) {
    this.consumesAtOnce = backends.every((b) => b.consumesAtOnce === true);
  }

  processEvents(events: EventSnapshot[]): boolean | Promise<boolean> {
    const results = this.backends.map((b) => b.processEvents(events));
    if (results.every((r) => typeof r === 'boolean')) return results.every((r) => r);
    return Promise.all(results).then((rs) => rs.every((r) => r));
  }

  async shutdown(): Promise<void> {
    await Promise.all(this.backends.map((b) => b.shutdown()));
  }
}

/** `blocking`: the request waits for the write, but a failure does not fail it. */
export class IgnoreErrorsBackend implements AuditBackend {
  readonly name: string;
  readonly consumesAtOnce: boolean;
  constructor(private readonly delegate: AuditBackend) {
    this.name = delegate.name;
    this.consumesAtOnce = delegate.consumesAtOnce === true;
  }

  processEvents(events: EventSnapshot[]): boolean | Promise<boolean> {
    const r = this.delegate.processEvents(events);
    return typeof r === 'boolean' ? true : r.then(() => true);
  }

  shutdown(): Promise<void> {
    return this.delegate.shutdown();
  }
}

/**
 * `batch`: events wait in a buffer of `bufferSize`; a batch goes to the delegate when it has
 * `maxBatchSize` events or `maxBatchWaitMs` after the batch began, at most `throttleQPS`
 * batches a second. A full buffer drops the event (counted under the plugin "buffered").
 */
export class BufferedBackend implements AuditBackend {
  readonly name: string;
  private readonly queue: EventSnapshot[] = [];
  private head = 0;
  private cancelTimer: (() => void) | undefined;
  private draining = false;
  private stopped = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly throttle: TokenBucket | undefined;

  constructor(
    private readonly delegate: AuditBackend,
    private readonly config: BatchConfig,
    private readonly metrics: AuditMetrics,
    private readonly clock: Clock,
  ) {
    this.name = `buffered<${delegate.name}>`;
    if (config.throttleEnable) this.throttle = new TokenBucket(config.throttleQPS, config.throttleBurst, clock);
  }

  private get length(): number {
    return this.queue.length - this.head;
  }

  processEvents(events: EventSnapshot[]): boolean {
    for (let i = 0; i < events.length; i++) {
      if (this.stopped || this.length >= this.config.bufferSize) {
        // As kube-apiserver: the request goes on; the lost events are counted.
        this.metrics.error('buffered', events.length - i);
        return true;
      }
      this.queue.push(events[i]!);
    }
    this.schedule();
    return true;
  }

  private schedule(): void {
    if (this.draining || this.length === 0) return;
    if (this.length >= this.config.maxBatchSize || this.config.maxBatchSize <= 1) {
      this.cancelTimer?.();
      this.cancelTimer = undefined;
      this.draining = true;
      // A microtask later, so the request that queued the event is not the one that writes it.
      queueMicrotask(() => void this.drain());
    } else if (!this.cancelTimer) {
      this.cancelTimer = this.clock.schedule(this.config.maxBatchWaitMs, () => {
        this.cancelTimer = undefined;
        this.draining = true;
        void this.drain();
      });
    }
  }

  private take(): EventSnapshot[] {
    const n = Math.min(this.length, Math.max(1, this.config.maxBatchSize));
    const batch = this.queue.slice(this.head, this.head + n);
    this.head += n;
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    return batch;
  }

  /** Sends batches while full ones are waiting, then re-arms the timer for a partial one. */
  private async drain(): Promise<void> {
    try {
      do {
        const batch = this.take();
        if (batch.length === 0) break;
        const wait = this.throttle?.reserve() ?? 0;
        if (wait > 0) await new Promise<void>((r) => this.clock.schedule(wait, r));
        const sent = Promise.resolve()
          .then(() => this.delegate.processEvents(batch))
          .catch(() => false);
        if (this.config.asyncDelegate) {
          this.inFlight.add(sent);
          void sent.finally(() => this.inFlight.delete(sent));
        } else await sent;
      } while (this.length >= this.config.maxBatchSize || (this.stopped && this.length > 0) || (this.config.maxBatchSize <= 1 && this.length > 0));
    } finally {
      this.draining = false;
      this.schedule();
    }
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    while (this.draining) await new Promise((r) => setImmediate(r));
    if (this.length > 0) {
      this.draining = true;
      await this.drain();
    }
    await Promise.all([...this.inFlight]);
    await this.delegate.shutdown();
  }
}

/** The backend as `--audit-<plugin>-mode` asks for it. */
export function withMode(delegate: AuditBackend, mode: BackendMode, batch: BatchConfig, metrics: AuditMetrics, clock: Clock): AuditBackend {
  if (mode === 'blocking-strict') return delegate;
  if (mode === 'blocking') return new IgnoreErrorsBackend(delegate);
  return new BufferedBackend(delegate, batch, metrics, clock);
}
