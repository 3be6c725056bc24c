// The scheduling queue (kube's three queues): active pods in priority order (then by when
// they were queued), pods backing off after a failed attempt (1 s doubling to 10 s), and
// unschedulable pods, which move back when the cluster changes (a node added or updated, a
// pod deleted) or after five minutes.
import type { Clock } from '../../apimachinery/clock.js';
import type { PodInfo } from '../framework/pod-info.js';

export const INITIAL_BACKOFF_MS = 1_000;
export const MAX_BACKOFF_MS = 10_000;
export const UNSCHEDULABLE_TIMEOUT_MS = 5 * 60_000;
const FLUSH_BACKOFF_MS = 1_000;
const FLUSH_UNSCHEDULABLE_MS = 30_000;

export interface QueuedPod {
  pod: PodInfo;
  /** Clock time it entered the active queue (its place among equal priorities). */
  timestamp: number;
  attempts: number;
  /** Clock time of the last failed attempt. */
  failedAt?: number;
  /** The queue's cycle number when it was last popped. */
  cycle?: number;
}

function before(a: QueuedPod, b: QueuedPod): boolean {
  return a.pod.priority !== b.pod.priority ? a.pod.priority > b.pod.priority : a.timestamp < b.timestamp;
}

class Heap {
  private readonly items: QueuedPod[] = [];
  private readonly index = new Map<string, number>();

  get size(): number {
    return this.items.length;
  }

  has(key: string): boolean {
    return this.index.has(key);
  }

  push(q: QueuedPod): void {
    const existing = this.index.get(q.pod.key);
    if (existing !== undefined) {
      this.items[existing] = q;
      this.fix(existing);
      return;
    }
    this.items.push(q);
    this.index.set(q.pod.key, this.items.length - 1);
    this.up(this.items.length - 1);
  }

  pop(): QueuedPod | undefined {
    if (this.items.length === 0) return undefined;
    const top = this.items[0];
    this.removeAt(0);
    return top;
  }

  remove(key: string): QueuedPod | undefined {
    const i = this.index.get(key);
    if (i === undefined) return undefined;
    const q = this.items[i];
    this.removeAt(i);
    return q;
  }

  private removeAt(i: number): void {
    this.index.delete(this.items[i].pod.key);
    const last = this.items.pop()!;
    if (i < this.items.length) {
      this.items[i] = last;
      this.index.set(last.pod.key, i);
      this.fix(i);
    }
  }

  private fix(i: number): void {
    this.up(i);
    this.down(i);
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(this.items[i], this.items[parent])) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.items.length && before(this.items[l], this.items[m])) m = l;
      if (r < this.items.length && before(this.items[r], this.items[m])) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private swap(a: number, b: number): void {
    [this.items[a], this.items[b]] = [this.items[b], this.items[a]];
    this.index.set(this.items[a].pod.key, a);
    this.index.set(this.items[b].pod.key, b);
  }
}

export class SchedulingQueue {
  private readonly active = new Heap();
  private readonly backoff = new Map<string, QueuedPod>();
  private readonly unschedulable = new Map<string, QueuedPod>();
  /** Cluster changes since a pod's attempt began make it retry at once rather than wait for the next. */
  private moveRequestCycle = 0;
  private cycle = 0;
  private waiter: (() => void) | undefined;
  private closed = false;
  private cancelBackoffFlush: () => void;
  private cancelUnschedulableFlush: () => void;

  constructor(private readonly clock: Clock) {
    const flushBackoff = (): void => {
      this.flushBackoff();
      if (!this.closed) this.cancelBackoffFlush = this.clock.schedule(FLUSH_BACKOFF_MS, flushBackoff);
    };
    const flushUnschedulable = (): void => {
      this.flushUnschedulable();
      if (!this.closed) this.cancelUnschedulableFlush = this.clock.schedule(FLUSH_UNSCHEDULABLE_MS, flushUnschedulable);
    };
    this.cancelBackoffFlush = this.clock.schedule(FLUSH_BACKOFF_MS, flushBackoff);
    this.cancelUnschedulableFlush = this.clock.schedule(FLUSH_UNSCHEDULABLE_MS, flushUnschedulable);
  }

  private now(): number {
    return this.clock.now().getTime();
  }

  /** Pods waiting anywhere in the queue. */
  get length(): number {
    return this.active.size + this.backoff.size + this.unschedulable.size;
  }

  /** Pods ready to be tried now. */
  get activeLength(): number {
    return this.active.size;
  }

  has(key: string): boolean {
    return this.active.has(key) || this.backoff.has(key) || this.unschedulable.has(key);
  }

  /** A new pending pod. */
  add(pod: PodInfo): void {
    this.backoff.delete(pod.key);
    this.unschedulable.delete(pod.key);
    this.active.push({ pod, timestamp: this.now(), attempts: 0 });
    this.wake();
  }

  /** A pending pod changed: it keeps its place, and an unschedulable one gets another try. */
  update(pod: PodInfo): void {
    const held = this.backoff.get(pod.key) ?? this.unschedulable.get(pod.key);
    if (this.active.has(pod.key)) {
      const q = this.active.remove(pod.key)!;
      this.active.push({ ...q, pod });
    } else if (held) {
      this.backoff.delete(pod.key);
      this.unschedulable.delete(pod.key);
      this.requeue({ ...held, pod });
    } else {
      this.add(pod);
    }
    this.wake();
  }

  delete(key: string): void {
    this.active.remove(key);
    this.backoff.delete(key);
    this.unschedulable.delete(key);
  }

  /** Resolves with the next pod to schedule, or undefined once closed. */
  async pop(): Promise<QueuedPod | undefined> {
    for (;;) {
      if (this.closed) return undefined;
      const q = this.active.pop();
      if (q) {
        this.cycle++;
        q.attempts++;
        q.cycle = this.cycle;
        return q;
      }
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
  }

  /** A failed attempt: back to backoff when the cluster changed meanwhile, else unschedulable. */
  addUnschedulable(q: QueuedPod): void {
    if (this.has(q.pod.key)) return;
    q.failedAt = this.now();
    const cycle = q.cycle ?? 0;
    if (this.moveRequestCycle >= cycle) this.requeue(q);
    else this.unschedulable.set(q.pod.key, q);
  }

  /** A failed attempt that may succeed on its own (a binding error): straight to backoff. */
  addBackoff(q: QueuedPod): void {
    if (this.has(q.pod.key)) return;
    q.failedAt = this.now();
    this.requeue(q);
  }

  /** The cluster changed in a way that may let unschedulable pods fit. */
  moveAllToActiveOrBackoff(): void {
    for (const q of this.unschedulable.values()) this.requeue(q);
    this.unschedulable.clear();
    this.moveRequestCycle = this.cycle;
    this.wake();
  }

  close(): void {
    this.closed = true;
    this.cancelBackoffFlush();
    this.cancelUnschedulableFlush();
    this.wake();
  }

  private backoffDuration(q: QueuedPod): number {
    return Math.min(MAX_BACKOFF_MS, INITIAL_BACKOFF_MS * 2 ** Math.max(0, q.attempts - 1));
  }

  private requeue(q: QueuedPod): void {
    if (q.failedAt !== undefined && q.failedAt + this.backoffDuration(q) > this.now()) this.backoff.set(q.pod.key, q);
    else this.active.push({ ...q, timestamp: this.now() });
    this.wake();
  }

  private flushBackoff(): void {
    const now = this.now();
    for (const [key, q] of this.backoff) {
      if ((q.failedAt ?? 0) + this.backoffDuration(q) <= now) {
        this.backoff.delete(key);
        this.active.push({ ...q, timestamp: now });
      }
    }
    this.wake();
  }

  private flushUnschedulable(): void {
    const now = this.now();
    for (const [key, q] of this.unschedulable) {
      if ((q.failedAt ?? 0) + UNSCHEDULABLE_TIMEOUT_MS <= now) {
        this.unschedulable.delete(key);
        this.requeue(q);
      }
    }
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }
}
