// The node Leases a kubelet keeps (`<node-lease namespace>/<node>`): held by the node, 40 s
// long, owned by the Node, renewed every 10 s. Renewals are spread over the period by the
// node's name, so that N nodes cost N / 10 writes a second, evenly, not N at once; one timer
// on the clock serves them all, and a bounded number of writes are in flight.

import type { Clock } from '../apimachinery/clock.js';
import { isApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';
import { microTime } from '../client/events.js';
import { leasesResource } from '../controllers/leader-election.js';
import { group, systemNamespace } from '../naming/index.js';

/** The kubelet's defaults: a 40 s lease, renewed at a quarter of it. */
export const NODE_LEASE_DURATION_SECONDS = 40;
export const NODE_LEASE_RENEW_INTERVAL_MS = 10_000;

export interface LeaseRenewerOptions {
  durationSeconds?: number;
  renewIntervalMs?: number;
  /** Writes in flight at most (default 16). */
  concurrency?: number;
  onError?: (err: unknown) => void;
}

interface Tracked {
  node: string;
  uid: string;
  /** The lease as last written (its resourceVersion is the next write's precondition). */
  lease?: KubeObject;
  /** Where in the period this node renews (ms), from its name. */
  phase: number;
}

interface Due {
  at: number;
  /** The tracking it was made for: an entry of a node since untracked is dropped. */
  t: Tracked;
}

/** A binary min-heap of renewals by time. */
class DueHeap {
  private readonly items: Due[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): Due | undefined {
    return this.items[0];
  }

  push(d: Due): void {
    const a = this.items;
    a.push(d);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (a[parent]!.at <= a[i]!.at) break;
      [a[parent], a[i]] = [a[i]!, a[parent]!];
      i = parent;
    }
  }

  pop(): Due | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l]!.at < a[m]!.at) m = l;
        if (r < a.length && a[r]!.at < a[m]!.at) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i]!, a[m]!];
        i = m;
      }
    }
    return top;
  }

  clear(): void {
    this.items.length = 0;
  }
}

/** A stable spread of names over [0, period): FNV-1a of the name. */
export function renewalPhase(name: string, periodMs: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % Math.max(1, Math.floor(periodMs));
}

export class LeaseRenewer {
  private readonly tracked = new Map<string, Tracked>();
  private readonly heap = new DueHeap();
  /** Renewals waiting for a write slot, in order. */
  private readonly ready: Tracked[] = [];
  private inFlight = 0;
  private timer: { at: number; cancel: () => void } | undefined;
  private stopped = false;
  private readonly durationSeconds: number;
  private readonly intervalMs: number;
  private readonly concurrency: number;
  private readonly drained = new Set<() => void>();
  /** Lease writes made (creates and updates), for the curious and the tests. */
  writes = 0;

  constructor(
    private readonly client: ApiClient,
    private readonly clock: Clock,
    private readonly opts: LeaseRenewerOptions = {},
  ) {
    this.durationSeconds = opts.durationSeconds ?? NODE_LEASE_DURATION_SECONDS;
    this.intervalMs = opts.renewIntervalMs ?? NODE_LEASE_RENEW_INTERVAL_MS;
    this.concurrency = opts.concurrency ?? 16;
  }

  isTracked(node: string): boolean {
    return this.tracked.has(node);
  }

  /** Starts renewing `node`'s lease: once now, then on its phase of every period. */
  track(node: string, uid: string): void {
    const known = this.tracked.get(node);
    if (known) {
      known.uid = uid;
      return;
    }
    const t: Tracked = { node, uid, phase: renewalPhase(node, this.intervalMs) };
    this.tracked.set(node, t);
    this.ready.push(t);
    this.pump();
  }

  /** Stops renewing (the lease is left to expire, as a stopped kubelet's). */
  untrack(node: string): void {
    this.tracked.delete(node);
  }

  idle(): boolean {
    return this.inFlight === 0 && this.ready.length === 0;
  }

  stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    this.ready.length = 0;
    this.heap.clear();
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.add(resolve));
  }

  private current(t: Tracked): boolean {
    return this.tracked.get(t.node) === t;
  }

  /** The next renewal time after `now` on the node's phase. */
  private nextDue(t: Tracked, now: number): number {
    const base = now - (now % this.intervalMs) + t.phase;
    return base > now ? base : base + this.intervalMs;
  }

  /** Arms the one timer for the earliest renewal due. */
  private arm(): void {
    if (this.stopped) return;
    while (this.heap.size > 0 && !this.current(this.heap.peek()!.t)) this.heap.pop();
    const next = this.heap.peek();
    if (!next) return;
    if (this.timer && this.timer.at <= next.at) return;
    this.timer?.cancel();
    const at = next.at;
    const cancel = this.clock.schedule(Math.max(0, at - this.clock.now().getTime()), () => {
      if (this.timer?.at === at) this.timer = undefined;
      this.fire();
    });
    this.timer = { at, cancel };
  }

  private fire(): void {
    const now = this.clock.now().getTime();
    while (this.heap.size > 0 && this.heap.peek()!.at <= now) {
      const d = this.heap.pop()!;
      if (this.current(d.t)) this.ready.push(d.t);
    }
    this.pump();
    this.arm();
  }

  private pump(): void {
    while (!this.stopped && this.inFlight < this.concurrency && this.ready.length > 0) {
      const t = this.ready.shift()!;
      if (!this.current(t)) continue;
      this.inFlight++;
      void this.renew(t)
        .catch((err: unknown) => this.opts.onError?.(err))
        .finally(() => {
          this.inFlight--;
          if (this.current(t) && !this.stopped) {
            this.heap.push({ at: this.nextDue(t, this.clock.now().getTime()), t });
            this.arm();
          }
          this.pump();
          if (this.inFlight === 0) for (const d of this.drained) d();
        });
    }
  }

  private leaseFor(t: Tracked, base: KubeObject | undefined): KubeObject {
    const node = t.node;
    const renewTime = microTime(this.clock.now());
    const spec = { holderIdentity: node, leaseDurationSeconds: this.durationSeconds, renewTime };
    // The kubelet's owner reference: the Node, with nothing else set.
    const ownerReferences = [{ apiVersion: 'v1', kind: 'Node', name: node, uid: t.uid }];
    if (base) {
      return { ...base, metadata: { ...base.metadata, ownerReferences }, spec: { ...(base.spec as Record<string, unknown>), ...spec } };
    }
    return {
      apiVersion: `${group('coordination')}/v1`,
      kind: 'Lease',
      metadata: { name: node, namespace: systemNamespace('node-lease'), ownerReferences },
      spec,
    };
  }

  private async renew(t: Tracked): Promise<void> {
    const namespace = systemNamespace('node-lease');
    const gvr = leasesResource();
    for (let attempt = 0; attempt < 3; attempt++) {
      if (!t.lease) {
        try {
          t.lease = await this.client.get(gvr, namespace, t.node);
        } catch (err) {
          if (!(isApiError(err) && err.code === 404)) throw err;
          try {
            this.writes++;
            t.lease = await this.client.create(gvr, namespace, this.leaseFor(t, undefined));
            return;
          } catch (e) {
            // Someone made it meanwhile: read it and update.
            if (isApiError(e) && e.code === 409) continue;
            throw e;
          }
        }
      }
      try {
        this.writes++;
        t.lease = await this.client.update(gvr, namespace, this.leaseFor(t, t.lease));
        return;
      } catch (err) {
        // A lease changed or removed by someone else: read it again.
        if (isApiError(err) && (err.code === 409 || err.code === 404)) {
          t.lease = undefined;
          continue;
        }
        throw err;
      }
    }
  }
}
