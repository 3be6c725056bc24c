// ResourceQuota: a write that would take a namespace past one of its quotas is refused.
// As kube-apiserver's plugin, it reads the quotas' `status` as the resource quota controller
// computes it (`status.hard`, `status.used`): the write's usage is added to `status.used`,
// refused with "exceeded quota" past `status.hard`, and otherwise charged by an optimistic
// update of the quota's status (a conflict re-reads the quota and checks again, three times).
// A quota whose status lacks the usage of a resource it limits refuses the write ("status
// unknown"); one with no status yet limits nothing until the controller has computed it.
// Quotas are read from the watch cache, live only when the cache shows none
// (`NamespacedLookup`), so a write in a namespace without quotas costs no consistent read.
import type { KubeObject } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';
import { NamespacedLookup } from './namespaced-lookup.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './types.js';
import { amountsOf, formatAmount, type Amounts } from '../apis/core/helpers/resources.js';
import { addUsage, missingComputeResources, namesMeasuredOn, prettyPrintAmounts, quotaSelects, quotaUsage } from '../apis/core/helpers/quota.js';
import { admissionForbidden, isResource, specOf, type JsonMap } from './util.js';
import { setOwn } from '../apimachinery/own.js';
import { isPlainObject } from '../apimachinery/types.js';
import { isApiError } from '../apimachinery/errors.js';

const QUOTAS = { group: '', version: 'v1', resource: 'resourcequotas' };

/** Quotas remembered as written by this plugin; the oldest is forgotten first. */
const WRITTEN_ENTRIES = 100;
/**
 * The resources whose updates can change their usage (a service's type, a claim's size), as
 * kube's evaluators handle them; other kinds are charged on create only (pods too: their
 * resources change in place only behind a gate that is off).
 */
const UPDATES_CHARGED = new Set(['/services', '/persistentvolumeclaims']);
/** Status updates tried again after a conflict, as kube's evaluator does. */
const CONFLICT_RETRIES = 3;

function revisionOf(obj: KubeObject): bigint {
  const rv = obj.metadata?.resourceVersion;
  return rv && /^[0-9]+$/.test(rv) ? BigInt(rv) : 0n;
}

const statusMap = (quota: KubeObject, key: 'hard' | 'used'): JsonMap => {
  const status = isPlainObject(quota.status) ? quota.status : {};
  const v = status[key];
  return isPlainObject(v) ? v : {};
};

/** The entries of `list` whose names are in `names` (kube's quota.Mask). */
function mask(list: Amounts, names: Iterable<string>): Amounts {
  const out: Amounts = new Map();
  for (const n of names) {
    const a = list.get(n);
    if (a) out.set(n, a);
  }
  return out;
}

export class ResourceQuotaAdmission implements AdmissionPlugin {
  readonly name = 'ResourceQuota';
  private readonly quotas: NamespacedLookup;
  /**
   * Quotas whose status this plugin wrote, by namespace/name: newer than the cache may show
   * yet, so the next write's status update does not start from an older version and conflict.
   */
  private readonly written = new Map<string, KubeObject>();

  constructor(private readonly client: ApiClient) {
    this.quotas = new NamespacedLookup(client, QUOTAS);
  }

  /** The namespace's quotas, each at the newest version this plugin knows. */
  private async quotasOf(namespace: string): Promise<KubeObject[]> {
    const listed = await this.quotas.list(namespace);
    if (this.written.size === 0) return listed;
    return listed.map((q) => {
      const key = `${namespace}/${q.metadata?.name ?? ''}`;
      const mine = this.written.get(key);
      if (!mine) return q;
      if (revisionOf(q) >= revisionOf(mine)) {
        this.written.delete(key);
        return q;
      }
      return mine;
    });
  }

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const obj = attrs.object;
    if (!obj || !attrs.namespace || attrs.subresource !== '') return;
    if (attrs.oldObject?.metadata?.deletionTimestamp) return;
    const resource = { group: attrs.resource.group, resource: attrs.resource.resource };
    if (attrs.operation === 'UPDATE' && !UPDATES_CHARGED.has(`${resource.group}/${resource.resource}`)) return;
    let quotas = await this.quotasOf(attrs.namespace);
    for (let retries = CONFLICT_RETRIES; quotas.length > 0; retries--) {
      const charged = this.charge(attrs, resource, obj, quotas);
      if (charged.length === 0 || attrs.dryRun) return;
      const failed: string[] = [];
      let lastError: unknown;
      for (const quota of charged) {
        try {
          await this.recordUsage(quota);
        } catch (err) {
          failed.push(quota.metadata?.name ?? '');
          lastError = err;
        }
      }
      if (failed.length === 0) return;
      if (retries <= 0) throw lastError;
      // Only the quotas whose update failed are checked again, at their current version.
      quotas = [];
      for (const name of failed) {
        try {
          quotas.push(await this.client.get(QUOTAS, attrs.namespace, name));
        } catch (err) {
          if (!(isApiError(err) && err.code === 404)) throw err;
        }
      }
    }
  }

  /**
   * The quotas the write is charged to, each with its `status.used` after the write; throws
   * the Forbidden error when a quota refuses it.
   */
  private charge(attrs: AdmissionAttributes, resource: { group: string; resource: string }, obj: KubeObject, quotas: KubeObject[]): KubeObject[] {
    const now = new Date();
    const interesting: KubeObject[] = [];
    for (const quota of quotas) {
      if (!quotaSelects(quota, resource, obj)) continue;
      const name = quota.metadata?.name ?? '';
      const restricted = namesMeasuredOn(resource, Object.keys(statusMap(quota, 'hard')));
      if (isResource(attrs, '', 'pods') && attrs.operation === 'CREATE') {
        const missing = missingComputeResources(specOf(obj) ?? {}, restricted);
        if (missing.length > 0) throw admissionForbidden(attrs, `failed quota: ${name}: must specify ${missing.join(',')}`);
      }
      const used = statusMap(quota, 'used');
      if (restricted.some((n) => !Object.hasOwn(used, n))) {
        throw admissionForbidden(attrs, `status unknown for quota: ${name}, resources: ${restricted.join(',')}`);
      }
      interesting.push(quota);
    }
    if (interesting.length === 0) return [];

    const usage = quotaUsage(resource, obj, now);
    // An update is charged what it adds to the previous version (never less than nothing),
    // where that version was stored and counted by the quota.
    const old = attrs.operation === 'UPDATE' && attrs.oldObject?.metadata?.resourceVersion ? attrs.oldObject : undefined;
    const increase = old ? nonNegativeDifference(usage, quotaUsage(resource, old, now)) : usage;

    const out: KubeObject[] = [];
    for (const quota of interesting) {
      const delta = old && quotaSelects(quota, resource, old) ? increase : usage;
      const hard = amountsOf(statusMap(quota, 'hard'));
      const used = amountsOf(statusMap(quota, 'used'));
      const requested = mask(delta, hard.keys());
      for (const [k, a] of requested) if (a.nano === 0n) requested.delete(k);
      if (requested.size === 0) continue;
      const after = new Map(used);
      for (const [k, a] of requested) addUsage(after, k, a);
      const exceeded = [...requested.keys()].filter((k) => after.get(k)!.nano > hard.get(k)!.nano).sort();
      if (exceeded.length > 0) {
        throw admissionForbidden(
          attrs,
          `exceeded quota: ${quota.metadata?.name ?? ''}, requested: ${prettyPrintAmounts(mask(requested, exceeded))}, used: ${prettyPrintAmounts(mask(used, exceeded))}, limited: ${prettyPrintAmounts(mask(hard, exceeded))}`,
        );
      }
      const next: JsonMap = { ...statusMap(quota, 'used') };
      for (const k of requested.keys()) setOwn(next, k, formatAmount(after.get(k)!));
      out.push({ ...quota, status: { ...(isPlainObject(quota.status) ? quota.status : {}), used: next } });
    }
    return out;
  }

  /** Writes the quota's new status at the version it was read at (a conflict fails it). */
  private async recordUsage(quota: KubeObject): Promise<void> {
    const namespace = quota.metadata?.namespace ?? '';
    const updated = await this.client.update(QUOTAS, namespace, quota, 'status');
    const key = `${namespace}/${updated.metadata?.name ?? ''}`;
    this.written.delete(key);
    this.written.set(key, updated);
    if (this.written.size > WRITTEN_ENTRIES) this.written.delete(this.written.keys().next().value!);
  }
}

/** `a - b` per name of `a`, no entry below zero (kube's SubtractWithNonNegativeResult). */
function nonNegativeDifference(a: Amounts, b: Amounts): Amounts {
  const out: Amounts = new Map();
  for (const [k, x] of a) {
    const d = x.nano - (b.get(k)?.nano ?? 0n);
    out.set(k, { nano: d > 0n ? d : 0n, format: x.format });
  }
  return out;
}
