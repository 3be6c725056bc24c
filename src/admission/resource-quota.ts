// ResourceQuota: a write that would take a namespace past one of its quotas is refused.
// Quotas are read from the watch cache, live only when the cache shows none
// (`NamespacedLookup`), so a write in a namespace without quotas costs no consistent read.
// Usage is what the objects of the written resource in the namespace use now (counted
// afresh, so deletions are seen at once: no quota controller recomputes a status here)
// plus what the write adds; a quota that admits the write has its status (hard, used)
// brought up to date, as the quota controller would.
import type { KubeObject } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';
import { NamespacedLookup } from './namespaced-lookup.js';
import { group as groupOf } from '../naming/index.js';
import { betaStorageClassAnnotation } from './classes.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './types.js';
import { addInto, amountOf, amountsOf, containerAmounts, formatAmount, podTotals, type Amount, type Amounts } from '../apis/core/helpers/resources.js';
import { admissionForbidden, isResource, mapsAt, specOf, stringAt, stringMapAt, type JsonMap } from './util.js';
import { setOwn } from '../apimachinery/own.js';
import { isPlainObject } from '../apimachinery/types.js';

const QUOTAS = { group: '', version: 'v1', resource: 'resourcequotas' };

/** Kinds counted under a plain name as well as `count/<resource>`. */
const LEGACY_COUNTS = new Set(['pods', 'services', 'secrets', 'configmaps', 'persistentvolumeclaims', 'replicationcontrollers', 'resourcequotas']);
/** Compute resources every container must state when a quota limits them. */
const MUST_SPECIFY = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

/** Quotas remembered as written by this plugin; the oldest is forgotten first. */
const WRITTEN_ENTRIES = 100;

function revisionOf(obj: KubeObject): bigint {
  const rv = obj.metadata?.resourceVersion;
  return rv && /^[0-9]+$/.test(rv) ? BigInt(rv) : 0n;
}

const one = (): Amount => ({ nano: 1_000_000_000n, format: 'DecimalSI' });

function isTerminal(pod: KubeObject): boolean {
  const phase = isPlainObject(pod.status) ? pod.status.phase : undefined;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** Compute usage of a set of requests and limits, under the quota names. */
function computeUsage(requests: Amounts, limits: Amounts, out: Amounts): void {
  for (const [k, a] of requests) {
    if (k.includes('/') && !k.startsWith('hugepages-')) {
      addInto(out, `requests.${k}`, a);
      continue;
    }
    addInto(out, `requests.${k}`, a);
    if (k === 'cpu' || k === 'memory' || k === 'ephemeral-storage' || k.startsWith('hugepages-')) addInto(out, k, a);
  }
  for (const [k, a] of limits) if (k === 'cpu' || k === 'memory' || k === 'ephemeral-storage') addInto(out, `limits.${k}`, a);
}

/** What one object of the resource uses, under every quota name that can measure it. */
function usageOf(resource: { group: string; resource: string }, obj: KubeObject): Amounts {
  const usage: Amounts = new Map();
  const countName = resource.group ? `count/${resource.resource}.${resource.group}` : `count/${resource.resource}`;
  if (resource.group === '' && resource.resource === 'pods') {
    if (isTerminal(obj)) return usage;
    const spec = specOf(obj) ?? {};
    usage.set('pods', one());
    usage.set(countName, one());
    computeUsage(podTotals(spec, 'requests'), podTotals(spec, 'limits'), usage);
    return usage;
  }
  usage.set(countName, one());
  if (resource.group !== '') return usage;
  if (LEGACY_COUNTS.has(resource.resource)) usage.set(resource.resource, one());
  if (resource.resource === 'services') {
    const spec = specOf(obj) ?? {};
    const type = stringAt(spec, 'type');
    if (type === 'LoadBalancer') usage.set('services.loadbalancers', one());
    if (type === 'LoadBalancer' || type === 'NodePort') {
      const ports = mapsAt(spec, 'ports').length;
      usage.set('services.nodeports', { nano: BigInt(ports) * 1_000_000_000n, format: 'DecimalSI' });
    }
  }
  if (resource.resource === 'persistentvolumeclaims') {
    const spec = specOf(obj) ?? {};
    const resources = isPlainObject(spec.resources) ? spec.resources : {};
    const storage = amountOf(isPlainObject(resources.requests) ? resources.requests.storage : undefined);
    const className = stringMapAt(obj.metadata as JsonMap | undefined, 'annotations')[betaStorageClassAnnotation()] ?? stringAt(spec, 'storageClassName');
    if (storage) usage.set('requests.storage', storage);
    if (className) {
      const prefix = `${className}.storageclass.${groupOf('storage')}`;
      usage.set(`${prefix}/persistentvolumeclaims`, one());
      if (storage) usage.set(`${prefix}/requests.storage`, storage);
    }
  }
  return usage;
}

/** Whether a quota's scopes select the object (scopes only ever select pods). */
function quotaMatches(quota: KubeObject, resource: { group: string; resource: string }, obj: KubeObject): boolean {
  const spec = specOf(quota) ?? {};
  const scopes = Array.isArray(spec.scopes) ? spec.scopes.filter((s): s is string => typeof s === 'string') : [];
  const selector = isPlainObject(spec.scopeSelector) ? mapsAt(spec.scopeSelector, 'matchExpressions') : [];
  if (scopes.length === 0 && selector.length === 0) return true;
  if (!(resource.group === '' && resource.resource === 'pods')) return false;
  const podSpec = specOf(obj) ?? {};
  const terminating = typeof podSpec.activeDeadlineSeconds === 'number';
  const bestEffort = [...mapsAt(podSpec, 'containers'), ...mapsAt(podSpec, 'initContainers')].every((c) => {
    const { requests, limits } = containerAmounts(c);
    return requests.size === 0 && limits.size === 0;
  });
  const priorityClass = stringAt(podSpec, 'priorityClassName') ?? '';
  const holds = (scope: string, operator = 'Exists', values: string[] = []): boolean => {
    switch (scope) {
      case 'Terminating':
        return terminating;
      case 'NotTerminating':
        return !terminating;
      case 'BestEffort':
        return bestEffort;
      case 'NotBestEffort':
        return !bestEffort;
      case 'PriorityClass':
        if (operator === 'In') return values.includes(priorityClass);
        if (operator === 'NotIn') return !values.includes(priorityClass);
        if (operator === 'DoesNotExist') return priorityClass === '';
        return priorityClass !== '';
      default:
        return false;
    }
  };
  return (
    scopes.every((s) => holds(s)) &&
    selector.every((e) => holds(stringAt(e, 'scopeName') ?? '', stringAt(e, 'operator'), Array.isArray(e.values) ? e.values.map(String) : []))
  );
}

function prettyPrint(list: Amounts): string {
  return [...list.keys()]
    .sort()
    .map((k) => `${k}=${formatAmount(list.get(k)!)}`)
    .join(',');
}

function mask(list: Amounts, names: string[]): Amounts {
  const out: Amounts = new Map();
  for (const n of names) {
    const a = list.get(n);
    out.set(n, a ?? { nano: 0n, format: 'DecimalSI' });
  }
  return out;
}

/** The compute resources a quota limits that some container does not state. */
function missingCompute(podSpec: JsonMap, hard: string[]): string[] {
  const required = hard.filter((h) => MUST_SPECIFY.has(h));
  const missing = new Set<string>();
  for (const c of [...mapsAt(podSpec, 'containers'), ...mapsAt(podSpec, 'initContainers')]) {
    const { requests, limits } = containerAmounts(c);
    const has: Amounts = new Map();
    computeUsage(requests, limits, has);
    for (const r of required) if (!has.has(r)) missing.add(r);
  }
  return [...missing].sort();
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
    const quotas = (await this.quotasOf(attrs.namespace)).filter((q) => quotaMatches(q, resource, obj));
    if (quotas.length === 0) return;

    const delta = usageOf(resource, obj);
    if (attrs.oldObject) for (const [k, a] of usageOf(resource, attrs.oldObject)) addInto(delta, k, { ...a, nano: -a.nano });
    for (const [k, a] of delta) if (a.nano === 0n) delta.delete(k);
    if (delta.size === 0) return;

    let objects: KubeObject[] | undefined;
    const updates: { quota: KubeObject; used: Amounts; hard: JsonMap }[] = [];
    for (const quota of quotas) {
      const hard = isPlainObject(specOf(quota)?.hard) ? (specOf(quota)!.hard as JsonMap) : {};
      const hardAmounts = amountsOf(hard);
      const name = quota.metadata?.name ?? '';
      if (isResource(attrs, '', 'pods') && attrs.operation === 'CREATE') {
        const missing = missingCompute(specOf(obj) ?? {}, Object.keys(hard));
        if (missing.length > 0) throw admissionForbidden(attrs, `failed quota: ${name}: must specify ${missing.join(',')}`);
      }
      const limited = [...delta.keys()].filter((k) => hardAmounts.has(k));
      if (limited.length === 0) continue;
      objects ??= (await this.client.list(attrs.resource, attrs.namespace)).items.filter((o) => !o.metadata?.deletionTimestamp);
      const used: Amounts = new Map();
      for (const o of objects) {
        if (!quotaMatches(quota, resource, o)) continue;
        for (const [k, a] of usageOf(resource, o)) if (hardAmounts.has(k)) addInto(used, k, a);
      }
      const exceeded = limited.filter((k) => (used.get(k)?.nano ?? 0n) + delta.get(k)!.nano > hardAmounts.get(k)!.nano).sort();
      if (exceeded.length > 0) {
        throw admissionForbidden(
          attrs,
          `exceeded quota: ${name}, requested: ${prettyPrint(mask(delta, exceeded))}, used: ${prettyPrint(mask(used, exceeded))}, limited: ${prettyPrint(mask(hardAmounts, exceeded))}`,
        );
      }
      const after: Amounts = new Map();
      for (const k of hardAmounts.keys()) {
        const before = used.get(k);
        const d = limited.includes(k) ? delta.get(k) : undefined;
        if (before || d) after.set(k, { nano: (before?.nano ?? 0n) + (d?.nano ?? 0n), format: before?.format ?? d?.format ?? 'DecimalSI' });
      }
      updates.push({ quota, used: after, hard });
    }
    if (attrs.dryRun) return;
    for (const { quota, used, hard } of updates) await this.recordUsage(quota, used, hard);
  }

  /** Writes the quota's status; a conflicting concurrent write is left to the next request to correct. */
  private async recordUsage(quota: KubeObject, used: Amounts, hard: JsonMap): Promise<void> {
    const status = isPlainObject(quota.status) ? quota.status : {};
    const previous = isPlainObject(status.used) ? status.used : {};
    const next: JsonMap = {};
    for (const k of Object.keys(hard)) {
      const a = used.get(k);
      setOwn(next, k, a ? formatAmount(a) : Object.hasOwn(previous, k) ? previous[k] : '0');
    }
    const namespace = quota.metadata?.namespace ?? '';
    try {
      const updated = await this.client.update(QUOTAS, namespace, { ...quota, status: { hard: { ...hard }, used: next } }, 'status');
      const key = `${namespace}/${updated.metadata?.name ?? ''}`;
      this.written.delete(key);
      this.written.set(key, updated);
      if (this.written.size > WRITTEN_ENTRIES) this.written.delete(this.written.keys().next().value!);
    } catch {
      // The check itself has passed; only the recorded figure is late.
    }
  }
}
