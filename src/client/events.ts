// Recording Events about objects (client-go's events recorder, events.<domain>/v1). The
// recorder is fire-and-forget: a controller's work never waits for, or fails because of,
// an Event.
import { hostname } from 'node:os';
import { realClock, type Clock } from '../apimachinery/clock.js';
import { isApiError } from '../apimachinery/errors.js';
import type { GroupVersionResource, KubeObject } from '../apimachinery/types.js';
import { group } from '../naming/index.js';
import type { ApiClient } from './types.js';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  /**
   * Records that `action` happened to `regarding` (and `related`, when set) for `reason`.
   * Repeats of the same event within Kubernetes' series window become a series.
   */
  eventf(regarding: KubeObject, related: KubeObject | undefined, type: EventType, reason: string, action: string, note: string): void;
}

export interface RecordedEvent {
  regarding: KubeObject;
  related?: KubeObject;
  type: EventType;
  reason: string;
  action: string;
  note: string;
}

/** Keeps events in memory, for unit tests of controllers (client-go's FakeRecorder). */
export class FakeEventRecorder implements EventRecorder {
  readonly events: RecordedEvent[] = [];

  eventf(regarding: KubeObject, related: KubeObject | undefined, type: EventType, reason: string, action: string, note: string): void {
    this.events.push({ regarding, ...(related ? { related } : {}), type, reason, action, note });
  }
}

/** What the broadcaster writes Events through (an ApiClient does). */
export type EventSink = Pick<ApiClient, 'create' | 'patch'>;

export interface EventBroadcasterOptions {
  clock?: Clock;
  /** Host name in each recorder's reportingInstance (`<controller>-<host>`). */
  hostname?: string;
  /** Events waiting to be written; more are dropped (client-go keeps 1000). */
  maxQueued?: number;
  /** Told about Events that could not be written (they are dropped, never retried hot). */
  onError?: (err: unknown) => void;
}

// client-go's events broadcaster: the queue bound, the write retries and the series timers.
const MAX_QUEUED_EVENTS = 1000;
const MAX_TRIES_PER_EVENT = 12;
const RETRY_SLEEP_MS = 10_000;
const SERIES_FINISH_MS = 6 * 60_000;
const SERIES_REFRESH_MS = 30 * 60_000;

interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
}

interface EventSeries {
  count: number;
  lastObservedTime: string;
}

/** The fields of an events/v1 Event the recorder writes. */
export interface EventObject extends KubeObject {
  metadata: { name: string; namespace: string; resourceVersion?: string };
  eventTime: string;
  series?: EventSeries;
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  regarding: ObjectReference;
  related?: ObjectReference;
  note: string;
  type: EventType;
}

/** RFC 3339 with microseconds, as metav1.MicroTime is written. */
export function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export function objectReference(obj: KubeObject): ObjectReference {
  const m = obj.metadata ?? {};
  const ref: ObjectReference = {};
  if (obj.apiVersion) ref.apiVersion = obj.apiVersion;
  if (obj.kind) ref.kind = obj.kind;
  if (m.namespace) ref.namespace = m.namespace;
  if (m.name) ref.name = m.name;
  if (m.uid) ref.uid = m.uid;
  if (m.resourceVersion) ref.resourceVersion = m.resourceVersion;
  return ref;
}

/**
 * Events are the same occurrence (one series) when action, reason, reporting controller and
 * the references agree; the note may differ, as with client-go.
 */
export function isomorphicKey(ev: EventObject): string {
  const ref = (r: ObjectReference | undefined): unknown[] =>
    r ? [r.apiVersion ?? '', r.kind ?? '', r.namespace ?? '', r.name ?? '', r.uid ?? '', r.resourceVersion ?? ''] : [];
  return JSON.stringify([ev.action, ev.reason, ev.reportingController, ref(ev.regarding), ref(ev.related)]);
}

/**
 * Writes Events to `events.<domain>/v1` for the recorders it makes. Recording never blocks or
 * throws: Events go to a bounded queue written one at a time. A repeat of a recorded Event
 * turns it into a series (count 2 written at once; later repeats counted in memory and
 * written every 30 minutes, and once more when the series has been quiet for 6 minutes).
 */
export class EventBroadcaster {
  private readonly clock: Clock;
  private readonly hostname: string;
  private readonly maxQueued: number;
  private readonly queue: EventObject[] = [];
  private readonly cache = new Map<string, EventObject>();
  private readonly cancels: (() => void)[] = [];
  private writing: Promise<void> | undefined;
  /** Wakes writes waiting to retry (on stop). */
  private readonly sleepers = new Set<() => void>();
  private stopped = false;
  private lastNameNanos = 0n;
  /** Events dropped because the queue was full or their writes kept failing. */
  dropped = 0;

  constructor(
    private readonly sink: EventSink,
    private readonly opts: EventBroadcasterOptions = {},
  ) {
    this.clock = opts.clock ?? realClock;
    this.hostname = opts.hostname ?? hostname();
    this.maxQueued = opts.maxQueued ?? MAX_QUEUED_EVENTS;
    this.every(SERIES_FINISH_MS, () => this.finishSeries());
    this.every(SERIES_REFRESH_MS, () => this.refreshSeries());
  }

  private every(ms: number, fn: () => void): void {
    const tick = (): void => {
      if (this.stopped) return;
      fn();
      this.cancels.push(this.clock.schedule(ms, tick));
    };
    this.cancels.push(this.clock.schedule(ms, tick));
  }

  /** A recorder whose Events name `reportingController` (reportingInstance `<controller>-<host>`). */
  newRecorder(reportingController: string): EventRecorder {
    const instance = `${reportingController}-${this.hostname}`;
    return {
      eventf: (regarding, related, type, reason, action, note) => {
        if (this.stopped) return;
        if (type !== 'Normal' && type !== 'Warning') return;
        this.record(this.makeEvent(regarding, related, type, reason, action, note, reportingController, instance));
      },
    };
  }

  private makeEvent(
    regarding: KubeObject,
    related: KubeObject | undefined,
    type: EventType,
    reason: string,
    action: string,
    note: string,
    reportingController: string,
    reportingInstance: string,
  ): EventObject {
    const now = this.clock.now();
    const ref = objectReference(regarding);
    // `<name>.<nanoseconds in hex>`; two Events in one millisecond still get distinct names.
    let nanos = BigInt(now.getTime()) * 1_000_000n;
    if (nanos <= this.lastNameNanos) nanos = this.lastNameNanos + 1n;
    this.lastNameNanos = nanos;
    return {
      apiVersion: `${group('events')}/v1`,
      kind: 'Event',
      metadata: { name: `${ref.name ?? ''}.${nanos.toString(16)}`, namespace: ref.namespace || 'default' },
      eventTime: microTime(now),
      reportingController,
      reportingInstance,
      action,
      reason,
      regarding: ref,
      ...(related ? { related: objectReference(related) } : {}),
      note,
      type,
    };
  }

  private record(ev: EventObject): void {
    const key = isomorphicKey(ev);
    const seen = this.cache.get(key);
    let toWrite: EventObject | undefined;
    if (seen) {
      const lastObservedTime = microTime(this.clock.now());
      if (seen.series) {
        seen.series = { count: seen.series.count + 1, lastObservedTime };
      } else {
        seen.series = { count: 2, lastObservedTime };
        toWrite = structuredClone(seen);
      }
    } else {
      this.cache.set(key, ev);
      toWrite = ev;
    }
    if (toWrite) this.enqueue(toWrite);
  }

  private enqueue(ev: EventObject): void {
    if (this.queue.length >= this.maxQueued) {
      this.dropped++;
      return;
    }
    this.queue.push(ev);
    this.writing ??= this.drain().finally(() => {
      this.writing = undefined;
    });
  }

  private async drain(): Promise<void> {
    for (let ev = this.queue.shift(); ev; ev = this.queue.shift()) {
      const recorded = await this.attempt(ev);
      if (recorded) {
        const key = isomorphicKey(recorded);
        const cached = this.cache.get(key);
        // Keep counts recorded meanwhile; take the server's name and version.
        if (cached) {
          cached.metadata = recorded.metadata;
          if (!cached.series && recorded.series) cached.series = recorded.series;
        }
      }
    }
  }

  private async attempt(ev: EventObject): Promise<EventObject | undefined> {
    for (let tries = 1; ; tries++) {
      const { recorded, retry, err } = await this.write(ev);
      if (!retry) return recorded;
      if (tries >= MAX_TRIES_PER_EVENT || this.stopped) {
        this.dropped++;
        this.opts.onError?.(err);
        return undefined;
      }
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          this.sleepers.delete(wake);
          cancel();
          resolve();
        };
        const cancel = this.clock.schedule(RETRY_SLEEP_MS, wake);
        this.sleepers.add(wake);
      });
    }
  }

  /** One write: a series is patched (created when gone), a new Event created. */
  private async write(ev: EventObject): Promise<{ recorded?: EventObject; retry: boolean; err?: unknown }> {
    const ns = ev.metadata.namespace;
    try {
      // Writes are serial, so the Event a series continues has been created by now.
      if (ev.series) {
        try {
          return { recorded: (await this.sink.patch(EVENTS(), ns, ev.metadata.name, { series: ev.series })) as EventObject, retry: false };
        } catch (err) {
          if (!(isApiError(err) && err.code === 404)) throw err;
        }
      }
      const fresh = structuredClone(ev);
      delete fresh.metadata.resourceVersion;
      return { recorded: (await this.sink.create(EVENTS(), ns, fresh)) as EventObject, retry: false };
    } catch (err) {
      // The server refused it (invalid, exists, forbidden): writing it again would not help.
      if (isApiError(err)) {
        this.opts.onError?.(err);
        return { retry: false, err };
      }
      return { retry: true, err };
    }
  }

  /** Writes the final count of series quiet for 6 minutes; forgets old single Events. */
  private finishSeries(): void {
    const cutoff = this.clock.now().getTime() - SERIES_FINISH_MS;
    for (const [key, ev] of this.cache) {
      if (ev.series) {
        if (Date.parse(ev.series.lastObservedTime) < cutoff) {
          this.cache.delete(key);
          this.enqueue(structuredClone(ev));
        }
      } else if (Date.parse(ev.eventTime) < cutoff) this.cache.delete(key);
    }
  }

  /** Writes the counts of running series (their Events would otherwise expire on the server). */
  private refreshSeries(): void {
    for (const ev of this.cache.values()) if (ev.series) this.enqueue(structuredClone(ev));
  }

  /** Resolves when every queued Event has been written (or given up on). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** Records nothing more; writes what is queued, giving up at once on failures. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const cancel of this.cancels.splice(0)) cancel();
    for (const wake of [...this.sleepers]) wake();
    await this.flush();
  }
}

function EVENTS(): GroupVersionResource {
  return { group: group('events'), version: 'v1', resource: 'events' };
}
