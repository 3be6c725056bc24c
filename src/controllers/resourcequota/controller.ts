// kube-controller-manager's resource quota controller: each ResourceQuota's `status.hard`
// (its spec's) and `status.used`, the usage of every resource it limits summed over the
// namespace's objects its scopes select. A quota is recomputed when its spec changes, when
// an object it measures is added, deleted or changes its usage (a pod that finishes frees
// its compute: replenishment), and on a full resync every `--resource-quota-sync-period`.
// Objects are read from informers: the kinds with their own quota names at once, other kinds
// (`count/<resource>.<group>`) from the first quota that names them, found through discovery.
import type { KubeObject } from '../../apimachinery/types.js';
import { isPlainObject } from '../../apimachinery/types.js';
import type { ApiClient } from '../../client/types.js';
import type { Informer } from '../../client/informer.js';
import type { SharedInformerFactory } from '../../client/informer-factory.js';
import { amountsOf, formatAmount } from '../../apis/core/helpers/resources.js';
import { podCountsForQuota, quotaUsage, resourceOfQuotaName, sumQuotaUsage, type QuotaResource } from '../../apis/core/helpers/quota.js';
import { setOwn } from '../../apimachinery/own.js';
import { isApiError } from '../../apimachinery/errors.js';
import { KeyedLoop } from '../keyed-loop.js';
import type { ControllerContext, DiscoveredResource } from '../types.js';

export const RESOURCEQUOTAS = { group: '', version: 'v1', resource: 'resourcequotas' };
/** The kinds with quota names of their own, watched from the start as kube's replenishment does. */
const CORE_MEASURED = ['pods', 'services', 'configmaps', 'secrets', 'persistentvolumeclaims', 'replicationcontrollers', 'resourcequotas'];

/** How long a `count/` name that discovery does not know is left unmeasured before asking again. */
const REDISCOVERY_MS = 30_000;
/** How soon a quota waiting for a new informer's first list is looked at again (real time, as the list). */
const UNSYNCED_RETRY_MS = 100;

export interface ResourceQuotaControllerOptions {
  client: ApiClient;
  informers: SharedInformerFactory;
  clock: ControllerContext['clock'];
  discover: () => Promise<DiscoveredResource[]>;
  /** Tells when the served resources change (a kind a quota counts may have come). */
  onResourcesChanged?: (listener: () => void) => () => void;
  /** `--resource-quota-sync-period`. */
  resyncPeriodMs: number;
  onError: (err: unknown) => void;
}

const PODS_RESOURCE: QuotaResource = { group: '', resource: 'pods' };
const isPods = (r: QuotaResource): boolean => r.group === '' && r.resource === 'pods';
const grKey = (r: QuotaResource): string => `${r.resource}.${r.group}`;
const nsOf = (o: KubeObject): string => o.metadata?.namespace ?? '';
const mapAt = (o: KubeObject, field: 'spec' | 'status', key: string): Record<string, unknown> => {
  const top = o[field];
  const v = isPlainObject(top) ? top[key] : undefined;
  return isPlainObject(v) ? v : {};
};

function sameMap(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && String(a[k]) === String(b[k]));
}

/** Equal usage maps (by amount, whatever their notation). */
function sameUsage(a: Map<string, { nano: bigint }>, b: Map<string, { nano: bigint }>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, x] of a) if (b.get(k)?.nano !== x.nano) return false;
  return true;
}

interface Monitor {
  resource: QuotaResource;
  informer: Informer;
}

export class ResourceQuotaController extends KeyedLoop {
  private readonly quotas: Informer;
  private readonly monitors = new Map<string, Monitor>();
  /** `count/` resources discovery did not know, with when it was last asked. */
  private readonly unknown = new Map<string, number>();
  private cancelResync: () => void = () => {};
  /** Wake-ups at the end of terminating pods' grace periods, by pod key. */
  private readonly graceTimers = new Map<string, () => void>();

  constructor(private readonly opts: ResourceQuotaControllerOptions) {
    super(opts.clock, 'resourcequota_primary');
    this.quotas = opts.informers.informerFor(RESOURCEQUOTAS);
    this.onStop(
      this.quotas.addEventHandler({
        onAdd: (q) => this.enqueue(q),
        onUpdate: (o, n) => {
          // Its own status writes (and admission's charges) come back here: only a new spec, or
          // one the status does not reflect yet, needs a sync; the resync corrects the rest.
          if (JSON.stringify(o.spec) !== JSON.stringify(n.spec) || !sameMap(mapAt(n, 'spec', 'hard'), mapAt(n, 'status', 'hard'))) this.enqueue(n);
        },
      }),
    );
    for (const resource of CORE_MEASURED) this.monitor({ group: '', resource }, 'v1');
    const unsubscribe = opts.onResourcesChanged?.(() => {
      if (this.unknown.size === 0) return;
      this.unknown.clear();
      for (const key of this.quotas.listKeys()) this.add(key);
    });
    if (unsubscribe) this.onStop(unsubscribe);
  }

  start(workers: number): void {
    this.run((key) => this.sync(key), workers, this.opts.onError);
    this.scheduleResync();
  }

  override async stop(): Promise<void> {
    this.cancelResync();
    for (const cancel of this.graceTimers.values()) cancel();
    this.graceTimers.clear();
    await super.stop();
  }

  private scheduleResync(): void {
    this.cancelResync = this.opts.clock.schedule(this.opts.resyncPeriodMs, () => {
      for (const key of this.quotas.listKeys()) this.add(key);
      this.scheduleResync();
    });
  }

  private enqueue(quota: KubeObject): void {
    this.add(`${nsOf(quota)}/${quota.metadata?.name ?? ''}`);
  }

  /** Queues the namespace's quotas that limit something objects of `r` are measured on. */
  private replenish(r: QuotaResource, namespace: string): void {
    const prefix = `${namespace}/`;
    for (const key of this.quotas.listKeys()) {
      if (!key.startsWith(prefix)) continue;
      const quota = this.quotas.get(namespace, key.slice(prefix.length));
      if (!quota) continue;
      const limits = Object.keys(mapAt(quota as KubeObject, 'spec', 'hard')).some((n) => {
        const of = resourceOfQuotaName(n);
        return of !== undefined && of.group === r.group && of.resource === r.resource;
      });
      if (limits) this.add(key);
    }
  }

  private monitor(resource: QuotaResource, version: string): Monitor {
    const existing = this.monitors.get(grKey(resource));
    if (existing) return existing;
    const countOnly = resource.group !== '' || !CORE_MEASURED.includes(resource.resource);
    const informer = this.opts.informers.informerFor({ ...resource, version }, countOnly ? { metadataOnly: true } : {});
    const m = { resource, informer };
    this.monitors.set(grKey(resource), m);
    const now = (): Date => this.opts.clock.now();
    this.onStop(
      informer.addEventHandler({
        onAdd: (o) => {
          this.replenish(resource, nsOf(o));
          if (isPods(resource)) this.followGracePeriod(o);
        },
        onUpdate: (o, n) => {
          if (!countOnly && !sameUsage(quotaUsage(resource, o, now()), quotaUsage(resource, n, now()))) this.replenish(resource, nsOf(n));
          if (isPods(resource)) this.followGracePeriod(n);
        },
        onDelete: (o) => {
          this.replenish(resource, nsOf(o));
          if (isPods(resource)) this.forgetGracePeriod(o);
        },
      }),
    );
    return m;
  }

  /**
   * A pod being deleted stops counting for compute at the end of its grace period, which no
   * event marks (its node may never confirm): its quotas are recomputed then.
   */
  private followGracePeriod(pod: KubeObject): void {
    const key = `${nsOf(pod)}/${pod.metadata?.name ?? ''}`;
    const deletion = Date.parse(pod.metadata?.deletionTimestamp ?? '');
    const grace = pod.metadata?.deletionGracePeriodSeconds;
    if (Number.isNaN(deletion) || typeof grace !== 'number' || this.graceTimers.has(key)) return;
    const now = this.opts.clock.now();
    if (!podCountsForQuota(pod, now)) return;
    const namespace = nsOf(pod);
    this.graceTimers.set(
      key,
      this.opts.clock.schedule(deletion + grace * 1000 - now.getTime() + 1, () => {
        this.graceTimers.delete(key);
        this.replenish(PODS_RESOURCE, namespace);
      }),
    );
  }

  private forgetGracePeriod(pod: KubeObject): void {
    const key = `${nsOf(pod)}/${pod.metadata?.name ?? ''}`;
    this.graceTimers.get(key)?.();
    this.graceTimers.delete(key);
  }

  /** The monitor of a resource a quota names, found through discovery; undefined when not served. */
  private async monitorOf(r: QuotaResource): Promise<Monitor | undefined> {
    const known = this.monitors.get(grKey(r));
    if (known) return known;
    const asked = this.unknown.get(grKey(r));
    const now = this.opts.clock.now().getTime();
    if (asked !== undefined && now - asked < REDISCOVERY_MS) return undefined;
    const served = (await this.opts.discover()).find(
      (d) => d.group === r.group && d.resource === r.resource && d.namespaced && d.verbs.includes('list') && d.verbs.includes('watch'),
    );
    if (!served) {
      this.unknown.set(grKey(r), now);
      return undefined;
    }
    this.unknown.delete(grKey(r));
    return this.monitor(r, served.version);
  }

  async sync(key: string): Promise<void> {
    if (!(await this.synced(this.quotas))) return;
    const quota = this.quotas.getByKey(key);
    if (!quota) return;
    const namespace = nsOf(quota);
    const hard = mapAt(quota, 'spec', 'hard');
    const byResource = new Map<string, { resource: QuotaResource; names: string[] }>();
    for (const name of Object.keys(hard)) {
      const r = resourceOfQuotaName(name);
      if (!r) continue;
      const entry = byResource.get(grKey(r)) ?? { resource: r, names: [] };
      entry.names.push(name);
      byResource.set(grKey(r), entry);
    }
    // Usage kept where nothing measures it (kube keeps a previous figure), then recomputed.
    const used: Record<string, unknown> = {};
    const previous = mapAt(quota, 'status', 'used');
    for (const name of Object.keys(hard)) if (Object.hasOwn(previous, name)) setOwn(used, name, previous[name]);
    const now = this.opts.clock.now();
    for (const { resource, names } of byResource.values()) {
      const m = await this.monitorOf(resource);
      if (!m) continue;
      if (!m.informer.hasSynced()) {
        // A kind first watched for this quota: computed once its informer has listed, without
        // holding a worker meanwhile (an empty list tells no handler, hence the poll).
        this.queue.addAfter(key, UNSYNCED_RETRY_MS);
        return;
      }
      // Every stored object counts (being deleted too, as kube's listers show them); a pod's
      // compute stops counting once it is terminal or past its grace period.
      const objects = m.informer.listKeys().flatMap((k) => {
        const o = k.startsWith(`${namespace}/`) ? m.informer.get(namespace, k.slice(namespace.length + 1)) : undefined;
        return o ? [o as KubeObject] : [];
      });
      for (const [name, a] of sumQuotaUsage(quota, resource, names, objects, now)) setOwn(used, name, formatAmount(a));
    }
    const status = { hard: { ...hard }, used };
    const current = isPlainObject(quota.status) ? quota.status : {};
    const unchanged =
      sameMap(mapAt(quota, 'status', 'hard'), status.hard) &&
      sameMap(Object.fromEntries(Object.keys(mapAt(quota, 'status', 'used')).map((k) => [k, ''])), Object.fromEntries(Object.keys(used).map((k) => [k, '']))) &&
      sameUsage(amountsOf(current.used), amountsOf(used));
    if (unchanged) return;
    try {
      await this.opts.client.update(RESOURCEQUOTAS, namespace, { ...quota, status }, 'status');
    } catch (err) {
      // A conflict is an admitted write charging the quota meanwhile: computed again from the
      // newer version once the cache has it, and not an error.
      if (!(isApiError(err) && err.code === 409)) throw err;
      this.queue.addRateLimited(key);
    }
  }
}
