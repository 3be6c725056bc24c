// Leader election on a coordination/v1 Lease, as client-go's leaderelection package does it:
// a candidate takes the Lease when it is free or its holder has not renewed it for the lease
// duration (measured on the candidate's own clock from when it last saw the record change),
// the leader renews every retry period and gives up leading when it could not renew within
// the renew deadline.
import { isApiError } from '../apimachinery/errors.js';
import type { Clock } from '../apimachinery/clock.js';
import type { GroupVersionResource, KubeObject } from '../apimachinery/types.js';
import { microTime } from '../client/events.js';
import type { ApiClient } from '../client/types.js';
import { group } from '../naming/index.js';

export function leasesResource(): GroupVersionResource {
  return { group: group('coordination'), version: 'v1', resource: 'leases' };
}

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface LeaderElectionConfig {
  namespace: string;
  name: string;
  /** `<hostname>_<uuid>` in kube-controller-manager. */
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** Acquire attempts wait retryPeriod * (1 + random * jitter) (client-go: 1.2; tests: 0). */
  jitter?: number;
}

export interface LeaderCallbacks {
  onStartedLeading(): void;
  onStoppedLeading(): void;
  onNewLeader?(identity: string): void;
  onError?(err: unknown): void;
}

/** kube-controller-manager's defaults (`--leader-elect-*`). */
export const DEFAULT_LEASE_DURATION_MS = 15_000;
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
export const DEFAULT_RETRY_PERIOD_MS = 2_000;

function sameSpec(a: LeaseSpec | undefined, b: LeaseSpec | undefined): boolean {
  return JSON.stringify(a ?? {}) === JSON.stringify(b ?? {});
}

export function validateLeaderElection(c: Pick<LeaderElectionConfig, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'>): void {
  // client-go's NewLeaderElector checks, with its messages.
  if (c.leaseDurationMs <= c.renewDeadlineMs) throw new Error('leaseDuration must be greater than renewDeadline');
  if (c.renewDeadlineMs <= 1.2 * c.retryPeriodMs) throw new Error('renewDeadline must be greater than retryPeriod*JitterFactor');
  if (c.leaseDurationMs < 1) throw new Error('leaseDuration must be greater than zero');
  if (c.renewDeadlineMs < 1) throw new Error('renewDeadline must be greater than zero');
  if (c.retryPeriodMs < 1) throw new Error('retryPeriod must be greater than zero');
}

export class LeaderElector {
  private leading = false;
  private stopped = true;
  private cancelTick: (() => void) | undefined;
  private attempt: Promise<void> | undefined;
  private observed: LeaseSpec | undefined;
  private observedResourceVersion: string | undefined;
  /** When (on our clock) we last saw the record change. */
  private observedAt = 0;
  private lastRenew = 0;
  private reportedLeader: string | undefined;

  constructor(
    private readonly client: ApiClient,
    private readonly clock: Clock,
    private readonly config: LeaderElectionConfig,
    private readonly callbacks: LeaderCallbacks,
  ) {
    validateLeaderElection(config);
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** The holder last seen in the Lease ('' when free). */
  leader(): string {
    return this.observed?.holderIdentity ?? '';
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.tick(0);
  }

  private tick(ms: number): void {
    this.cancelTick = this.clock.schedule(ms, () => {
      this.cancelTick = undefined;
      this.attempt = this.step().finally(() => {
        this.attempt = undefined;
      });
    });
  }

  private async step(): Promise<void> {
    let ok = false;
    try {
      ok = await this.tryAcquireOrRenew();
    } catch (err) {
      this.callbacks.onError?.(err);
    }
    if (this.stopped) return;
    const now = this.clock.now().getTime();
    if (this.leading) {
      if (ok) this.lastRenew = now;
      else if (now - this.lastRenew >= this.config.renewDeadlineMs) {
        this.leading = false;
        this.callbacks.onStoppedLeading();
      }
    } else if (ok) {
      this.leading = true;
      this.lastRenew = now;
      this.callbacks.onStartedLeading();
    }
    const wait = this.leading ? this.config.retryPeriodMs : this.config.retryPeriodMs * (1 + Math.random() * (this.config.jitter ?? 1.2));
    if (!this.stopped) this.tick(wait);
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.clock.now();
    const leases = leasesResource();
    const { namespace, name, identity } = this.config;
    const mine = (acquireTime: string, transitions: number): LeaseSpec => ({
      holderIdentity: identity,
      leaseDurationSeconds: Math.round(this.config.leaseDurationMs / 1000),
      acquireTime,
      renewTime: microTime(now),
      leaseTransitions: transitions,
    });
    let lease: KubeObject;
    try {
      lease = await this.client.get(leases, namespace, name);
    } catch (err) {
      if (!(isApiError(err) && err.code === 404)) throw err;
      const spec = mine(microTime(now), 0);
      try {
        const created = await this.client.create(leases, namespace, { apiVersion: `${leases.group}/v1`, kind: 'Lease', metadata: { name, namespace }, spec });
        this.observe(created, now.getTime());
        return true;
      } catch (e) {
        if (isApiError(e) && e.code === 409) return false;
        throw e;
      }
    }
    const current = (lease.spec ?? {}) as LeaseSpec;
    if (!sameSpec(current, this.observed) || lease.metadata?.resourceVersion !== this.observedResourceVersion) this.observe(lease, now.getTime());
    const holder = current.holderIdentity ?? '';
    if (holder !== '' && holder !== identity && this.observedAt + this.config.leaseDurationMs > now.getTime()) return false;
    // A renewal keeps the acquire time; a take-over is one more transition.
    const spec = holder === identity ? mine(current.acquireTime ?? microTime(now), current.leaseTransitions ?? 0) : mine(microTime(now), (current.leaseTransitions ?? 0) + 1);
    try {
      const updated = await this.client.update(leases, namespace, { ...lease, spec });
      this.observe(updated, now.getTime());
      return true;
    } catch (err) {
      if (isApiError(err) && err.code === 409) return false;
      throw err;
    }
  }

  private observe(lease: KubeObject, at: number): void {
    this.observed = (lease.spec ?? {}) as LeaseSpec;
    this.observedResourceVersion = lease.metadata?.resourceVersion;
    this.observedAt = at;
    const holder = this.observed.holderIdentity ?? '';
    if (holder !== this.reportedLeader) {
      this.reportedLeader = holder;
      if (holder) this.callbacks.onNewLeader?.(holder);
    }
  }

  /**
   * Stops campaigning. With `release`, a leader frees the Lease (holder cleared, duration 1s)
   * so another candidate need not wait out the lease duration.
   */
  async stop(opts: { release?: boolean } = {}): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.cancelTick?.();
    this.cancelTick = undefined;
    await this.attempt;
    const wasLeading = this.leading;
    if (wasLeading) {
      this.leading = false;
      this.callbacks.onStoppedLeading();
    }
    if (!wasLeading || !opts.release) return;
    const now = microTime(this.clock.now());
    try {
      const lease = await this.client.get(leasesResource(), this.config.namespace, this.config.name);
      if (((lease.spec ?? {}) as LeaseSpec).holderIdentity !== this.config.identity) return;
      const spec: LeaseSpec = { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: this.observed?.leaseTransitions ?? 0 };
      await this.client.update(leasesResource(), this.config.namespace, { ...lease, spec });
    } catch (err) {
      this.callbacks.onError?.(err);
    }
  }
}
