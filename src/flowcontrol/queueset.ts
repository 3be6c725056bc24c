// Execution seats and queues. Every request takes one seat (1.27 estimates more for large
// lists; this server does not). A Limited priority level has a nominal number of seats from
// its shares; `lendablePercent` of them go into a pool that every level may borrow from, up
// to its own nominal seats plus `borrowingLimitPercent` (no limit when unset). Seats freed in
// the pool go first to levels below their nominal seats (lenders taking their seats back),
// so a level is never kept under its nominal seats by borrowers for longer than their
// requests run. (1.27 instead re-divides the lendable seats every 10 s by measured demand.)
//
// Within a level, a flow (FlowSchema and distinguisher) is shuffle-sharded onto `handSize`
// of the level's queues and joins the shortest; a free seat goes to the next non-empty queue
// in round-robin order. With one seat per request this is the fairness 1.27's virtual-time
// fair queuing gives equal requests: flows on different queues take turns.
import { createHash } from 'node:crypto';
import type { Clock } from '../apimachinery/clock.js';
import type { RequestDigest } from './types.js';

export type RejectReason = 'queue-full' | 'time-out' | 'cancelled' | 'concurrency-limit';

export interface LevelLimits {
  nominal: number;
  /** Seats of `nominal` others may borrow. */
  lendable: number;
  /** The most seats this level may hold: nominal plus what it may borrow. */
  max: number;
}

export interface QueuingConfig {
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

/** What the level reports as requests come and go (metrics). */
export interface LevelObserver {
  waiting(flowSchema: string, delta: number): void;
  executing(flowSchema: string, delta: number): void;
  rejected(flowSchema: string, reason: RejectReason): void;
  dispatched(flowSchema: string, waitedSeconds: number): void;
}

export interface QueuedRequest {
  flowSchema: string;
  distinguisher: string;
  arrived: Date;
  digest: RequestDigest;
}

interface Waiter extends QueuedRequest {
  queue: number;
  settle(outcome: RejectReason | 'execute'): void;
}

interface Queue {
  waiting: Waiter[];
  executing: number;
}

/** A seat to give back when the request is done (once; later calls do nothing). */
export type Release = () => void;

export type Admission = { execute: Release; queue?: number } | { reject: RejectReason };

/** The seats of the whole server, shared by its Limited levels. */
export class SeatPool {
  private readonly levels = new Set<PriorityLevelQueues>();
  private readonly retired = new Set<PriorityLevelQueues>();
  private turn = 0;

  add(level: PriorityLevelQueues): void {
    this.levels.add(level);
  }

  /** A level replaced by a new configuration: it serves what it holds, then leaves. */
  retire(level: PriorityLevelQueues): void {
    this.retired.add(level);
    this.sweep();
  }

  private sweep(): void {
    for (const l of this.retired) {
      if (!l.isIdle()) continue;
      this.retired.delete(l);
      this.levels.delete(l);
    }
  }

  /** Lendable seats in use by levels beyond their own unlendable part, and the pool's size. */
  private usage(): { used: number; size: number } {
    let used = 0;
    let size = 0;
    for (const l of this.levels) {
      size += l.limits.lendable;
      used += Math.max(0, l.executingSeats - (l.limits.nominal - l.limits.lendable));
    }
    return { used, size };
  }

  /** Whether `level` may take one more seat now. */
  canRun(level: PriorityLevelQueues): boolean {
    const own = level.limits.nominal - level.limits.lendable;
    if (level.executingSeats < own) return true;
    if (level.executingSeats >= level.limits.max) return false;
    const { used, size } = this.usage();
    return used < size;
  }

  /** Hands free seats to waiting requests: levels under their nominal seats first, then in turn. */
  dispatch(): void {
    this.sweep();
    for (let progress = true; progress; ) {
      progress = false;
      const levels = [...this.levels];
      if (levels.length === 0) return;
      const start = this.turn++ % levels.length;
      const order = [...levels.slice(start), ...levels.slice(0, start)].sort(
        (a, b) => Number(a.executingSeats >= a.limits.nominal) - Number(b.executingSeats >= b.limits.nominal),
      );
      for (const level of order) {
        if (level.hasWaiting() && this.canRun(level)) {
          level.dispatchOne();
          progress = true;
          break;
        }
      }
    }
  }
}

/** sha256 of the flow's identity, first 8 bytes: the shuffle-sharding hash. */
export function flowHash(flowSchema: string, distinguisher: string): bigint {
  const h = createHash('sha256');
  h.update(flowSchema);
  h.update('\u0000');
  h.update(distinguisher);
  return h.digest().readBigUInt64LE(0);
}

/** Deals `handSize` distinct queue indexes out of `deck` from `hash` (mixed-radix digits). */
export function dealHand(hash: bigint, deck: number, handSize: number): number[] {
  const remaining = Array.from({ length: deck }, (_, i) => i);
  const hand: number[] = [];
  let h = hash;
  for (let i = 0; i < handSize && remaining.length > 0; i++) {
    const n = BigInt(remaining.length);
    const idx = Number(h % n);
    h /= n;
    hand.push(remaining.splice(idx, 1)[0]!);
  }
  return hand;
}

export interface LevelCounters {
  dispatched: number;
  rejected: number;
  timedOut: number;
  cancelled: number;
}

export class PriorityLevelQueues {
  executingSeats = 0;
  readonly counters: LevelCounters = { dispatched: 0, rejected: 0, timedOut: 0, cancelled: 0 };
  private readonly queues: Queue[];
  private waitingCount = 0;
  private next = 0;
  private readonly hands = new Map<string, number[]>();

  constructor(
    readonly name: string,
    public limits: LevelLimits,
    readonly queuing: QueuingConfig | undefined,
    private readonly pool: SeatPool,
    private readonly clock: Clock,
    private readonly waitLimitMs: number,
    private readonly observer: LevelObserver,
  ) {
    this.queues = Array.from({ length: queuing?.queues ?? 0 }, () => ({ waiting: [], executing: 0 }));
  }

  hasWaiting(): boolean {
    return this.waitingCount > 0;
  }

  get waiting(): number {
    return this.waitingCount;
  }

  isIdle(): boolean {
    return this.waitingCount === 0 && this.executingSeats === 0;
  }

  /** The queues for the debug dump. */
  dumpQueues(): { waiting: readonly QueuedRequest[]; executing: number }[] {
    return this.queues.map((q) => ({ waiting: q.waiting, executing: q.executing }));
  }

  /**
   * Admits a request now (execute), refuses it (reject), or queues it; a queued request
   * settles when a seat frees, its wait limit passes, or `signal` aborts. Only a queued
   * request is answered with a promise, and only it needs its signal (`cancel`).
   */
  admit(req: QueuedRequest, cancel: AbortSignal | (() => AbortSignal)): Admission | Promise<Admission> {
    if (!this.queuing) {
      if (!this.pool.canRun(this)) return this.reject(req.flowSchema, 'concurrency-limit');
      return { execute: this.take(req.flowSchema, -1, req.arrived) };
    }
    const queue = this.chooseQueue(req);
    const q = this.queues[queue]!;
    if (this.waitingCount === 0 && this.pool.canRun(this)) return { execute: this.take(req.flowSchema, queue, req.arrived), queue };
    if (q.waiting.length >= this.queuing.queueLengthLimit) return this.reject(req.flowSchema, 'queue-full');
    const signal = typeof cancel === 'function' ? cancel() : cancel;
    if (signal.aborted) return this.reject(req.flowSchema, 'cancelled');
    return this.wait(req, queue, signal);
  }

  private async wait(req: QueuedRequest, queue: number, signal: AbortSignal): Promise<Admission> {
    const q = this.queues[queue]!;
    const outcome = await new Promise<RejectReason | 'execute'>((resolve) => {
      let cancelTimer = (): void => {};
      const onAbort = (): void => waiter.settle('cancelled');
      const waiter: Waiter = {
        ...req,
        queue,
        settle: (o) => {
          // Settles once: whichever of dispatch, time-out and cancel comes first.
          waiter.settle = () => {};
          cancelTimer();
          signal.removeEventListener('abort', onAbort);
          if (o !== 'execute') this.dequeue(waiter);
          resolve(o);
        },
      };
      q.waiting.push(waiter);
      this.waitingCount++;
      this.observer.waiting(req.flowSchema, 1);
      cancelTimer = this.clock.schedule(this.waitLimitMs, () => waiter.settle('time-out'));
      signal.addEventListener('abort', onAbort, { once: true });
      // Seats may be free for this level only through the pool's order.
      this.pool.dispatch();
    });
    if (outcome !== 'execute') {
      if (outcome === 'time-out') this.counters.timedOut++;
      if (outcome === 'cancelled') this.counters.cancelled++;
      return this.reject(req.flowSchema, outcome);
    }
    return { execute: this.releaser(req.flowSchema, queue), queue };
  }

  /** Gives the next queue in turn its head request (the pool checked there is a seat). */
  dispatchOne(): void {
    for (let i = 0; i < this.queues.length; i++) {
      const index = (this.next + i) % this.queues.length;
      const q = this.queues[index]!;
      const w = q.waiting.shift();
      if (!w) continue;
      this.next = (index + 1) % this.queues.length;
      this.waitingCount--;
      this.observer.waiting(w.flowSchema, -1);
      this.seize(w.flowSchema, index, w.arrived);
      w.settle('execute');
      return;
    }
  }

  private dequeue(w: Waiter): void {
    const q = this.queues[w.queue]!;
    const i = q.waiting.indexOf(w);
    if (i < 0) return;
    q.waiting.splice(i, 1);
    this.waitingCount--;
    this.observer.waiting(w.flowSchema, -1);
  }

  private reject(flowSchema: string, reason: RejectReason): Admission {
    this.counters.rejected++;
    this.observer.rejected(flowSchema, reason);
    return { reject: reason };
  }

  private chooseQueue(req: QueuedRequest): number {
    const { queues, handSize } = this.queuing!;
    const key = `${req.flowSchema}\u0000${req.distinguisher}`;
    let hand = this.hands.get(key);
    if (!hand) {
      if (this.hands.size >= 10_000) this.hands.clear();
      hand = dealHand(flowHash(req.flowSchema, req.distinguisher), queues, handSize);
      this.hands.set(key, hand);
    }
    let best = hand[0]!;
    let bestLength = Infinity;
    for (const i of hand) {
      const q = this.queues[i]!;
      const length = q.waiting.length + q.executing;
      if (length < bestLength) {
        best = i;
        bestLength = length;
      }
    }
    return best;
  }

  private seize(flowSchema: string, queue: number, arrived: Date): void {
    this.executingSeats++;
    if (queue >= 0) this.queues[queue]!.executing++;
    this.counters.dispatched++;
    this.observer.dispatched(flowSchema, Math.max(0, this.clock.now().getTime() - arrived.getTime()) / 1000);
    this.observer.executing(flowSchema, 1);
  }

  private take(flowSchema: string, queue: number, arrived: Date): Release {
    this.seize(flowSchema, queue, arrived);
    return this.releaser(flowSchema, queue);
  }

  private releaser(flowSchema: string, queue: number): Release {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.executingSeats--;
      if (queue >= 0) this.queues[queue]!.executing--;
      this.observer.executing(flowSchema, -1);
      this.pool.dispatch();
    };
  }
}
