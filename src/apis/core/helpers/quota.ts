// ResourceQuota semantics shared by the quota controller (which computes `status.used`) and
// the ResourceQuota admission plugin (which charges a write against it): what one object
// uses under each quota resource name, which quotas' scopes select it, and which resource a
// quota name is measured on.
import type { KubeObject } from '../../../apimachinery/types.js';
import { isPlainObject } from '../../../apimachinery/types.js';
import { group as groupOf, longDomainKey } from '../../../naming/index.js';
import { objs, type JsonObject as JsonMap } from '../../util.js';
import { addInto, containerAmounts, formatAmount, podTotals, amountOf, type Amount, type Amounts } from './resources.js';

export interface QuotaResource {
  group: string;
  resource: string;
}

/** Kinds counted under a plain name as well as `count/<resource>`. */
const LEGACY_COUNTS = new Set(['pods', 'services', 'secrets', 'configmaps', 'persistentvolumeclaims', 'replicationcontrollers', 'resourcequotas']);
/** Compute resources every container must state when a quota limits them. */
const MUST_SPECIFY = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);
/** Resources named without a prefix for what pods request (besides hugepages). */
const POD_PLAIN = new Set(['cpu', 'memory', 'ephemeral-storage']);

const amount = (n: number | bigint): Amount => ({ nano: BigInt(n) * 1_000_000_000n, format: 'DecimalSI' });
export const zeroAmount = (): Amount => amount(0);

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const specOf = (o: KubeObject): JsonMap => (isPlainObject(o.spec) ? o.spec : {});

/** The object-count name of a resource: `count/pods`, `count/deployments.apps`. */
export function objectCountName(r: QuotaResource): string {
  return r.group ? `count/${r.resource}.${r.group}` : `count/${r.resource}`;
}

/** The storage-class prefix of the per-class claim names (`<class>.storageclass.storage.<domain>/`). */
function storageClassSuffix(): string {
  return `.storageclass.${groupOf('storage')}/`;
}

/** The resource whose objects measure a quota resource name; undefined when nothing does. */
export function resourceOfQuotaName(name: string): QuotaResource | undefined {
  if (name.startsWith('count/')) {
    const rest = name.slice('count/'.length);
    const dot = rest.indexOf('.');
    const resource = dot < 0 ? rest : rest.slice(0, dot);
    if (!/^[a-z0-9][a-z0-9-]*$/.test(resource)) return undefined;
    return { group: dot < 0 ? '' : rest.slice(dot + 1), resource };
  }
  if (LEGACY_COUNTS.has(name)) return { group: '', resource: name };
  if (name === 'services.loadbalancers' || name === 'services.nodeports') return { group: '', resource: 'services' };
  if (name === 'requests.storage') return { group: '', resource: 'persistentvolumeclaims' };
  const suffix = storageClassSuffix();
  const at = name.indexOf(suffix);
  if (at > 0) {
    const what = name.slice(at + suffix.length);
    return what === 'requests.storage' || what === 'persistentvolumeclaims' ? { group: '', resource: 'persistentvolumeclaims' } : undefined;
  }
  if (POD_PLAIN.has(name) || name.startsWith('hugepages-') || name.startsWith('requests.') || name.startsWith('limits.')) return { group: '', resource: 'pods' };
  return undefined;
}

/** The names of `names` that objects of `r` are measured under. */
export function namesMeasuredOn(r: QuotaResource, names: Iterable<string>): string[] {
  const out: string[] = [];
  for (const n of names) {
    const of = resourceOfQuotaName(n);
    if (of && of.group === r.group && of.resource === r.resource) out.push(n);
  }
  return out.sort();
}

/**
 * Whether a pod still counts against compute quota: not terminal, and not past the end of
 * the grace period of its deletion.
 */
export function podCountsForQuota(pod: KubeObject, now: Date): boolean {
  const status = isPlainObject(pod.status) ? pod.status : {};
  if (status.phase === 'Succeeded' || status.phase === 'Failed') return false;
  const deletion = pod.metadata?.deletionTimestamp;
  const grace = pod.metadata?.deletionGracePeriodSeconds;
  if (deletion && typeof grace === 'number') {
    const at = Date.parse(deletion);
    if (!Number.isNaN(at) && now.getTime() > at + grace * 1000) return false;
  }
  return true;
}

/** Requests and limits under the quota names (`requests.cpu` and `cpu`, `limits.memory`, ...). */
export function computeUsage(requests: Amounts, limits: Amounts, out: Amounts): void {
  for (const [k, a] of requests) {
    addInto(out, `requests.${k}`, a);
    if (POD_PLAIN.has(k) || k.startsWith('hugepages-')) addInto(out, k, a);
  }
  for (const [k, a] of limits) if (POD_PLAIN.has(k)) addInto(out, `limits.${k}`, a);
}

/** What one object of `r` uses, under every quota name that can measure it. */
export function quotaUsage(r: QuotaResource, obj: KubeObject, now: Date): Amounts {
  const usage: Amounts = new Map();
  // The object count covers every stored object, terminal pods too.
  usage.set(objectCountName(r), amount(1));
  if (r.group !== '') return usage;
  if (r.resource === 'pods') {
    if (!podCountsForQuota(obj, now)) return usage;
    const spec = specOf(obj);
    usage.set('pods', amount(1));
    computeUsage(podTotals(spec, 'requests'), podTotals(spec, 'limits'), usage);
    return usage;
  }
  if (LEGACY_COUNTS.has(r.resource)) usage.set(r.resource, amount(1));
  const spec = specOf(obj);
  if (r.resource === 'services') {
    const type = str(spec.type);
    if (type === 'LoadBalancer') usage.set('services.loadbalancers', amount(1));
    if (type === 'LoadBalancer' || type === 'NodePort') usage.set('services.nodeports', amount(objs(spec.ports).length));
  }
  if (r.resource === 'persistentvolumeclaims') {
    const resources = isPlainObject(spec.resources) ? spec.resources : {};
    const storage = amountOf(isPlainObject(resources.requests) ? resources.requests.storage : undefined);
    const annotations = obj.metadata?.annotations ?? {};
    const annotated = Object.hasOwn(annotations, longDomainKey('storage-class', 'volume.beta')) ? annotations[longDomainKey('storage-class', 'volume.beta')] : undefined;
    const className = annotated ?? str(spec.storageClassName);
    if (storage) usage.set('requests.storage', storage);
    if (className) {
      const prefix = `${className}${storageClassSuffix()}`;
      usage.set(`${prefix}persistentvolumeclaims`, amount(1));
      if (storage) usage.set(`${prefix}requests.storage`, storage);
    }
  }
  return usage;
}

function isBestEffort(podSpec: JsonMap): boolean {
  return [...objs(podSpec.containers), ...objs(podSpec.initContainers)].every((c) => {
    const { requests, limits } = containerAmounts(c);
    return requests.size === 0 && limits.size === 0;
  });
}

/** Whether a quota's scopes (and scope selector) select the object; scopes select only pods. */
export function quotaSelects(quota: KubeObject, r: QuotaResource, obj: KubeObject): boolean {
  const spec = specOf(quota);
  const scopes = Array.isArray(spec.scopes) ? spec.scopes.filter((s): s is string => typeof s === 'string') : [];
  const selector = isPlainObject(spec.scopeSelector) ? objs(spec.scopeSelector.matchExpressions) : [];
  if (scopes.length === 0 && selector.length === 0) return true;
  if (!(r.group === '' && r.resource === 'pods')) return false;
  const podSpec = specOf(obj);
  const terminating = typeof podSpec.activeDeadlineSeconds === 'number' && podSpec.activeDeadlineSeconds >= 0;
  const priorityClass = str(podSpec.priorityClassName) ?? '';
  const holds = (scope: string, operator = 'Exists', values: string[] = []): boolean => {
    switch (scope) {
      case 'Terminating':
        return terminating;
      case 'NotTerminating':
        return !terminating;
      case 'BestEffort':
        return isBestEffort(podSpec);
      case 'NotBestEffort':
        return !isBestEffort(podSpec);
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
    selector.every((e) => holds(str(e.scopeName) ?? '', str(e.operator), Array.isArray(e.values) ? e.values.map(String) : []))
  );
}

/** Adds `a` into `total[name]`; a zero takes the notation of what is added to it, as Go's Quantity.Add. */
export function addUsage(total: Amounts, name: string, a: Amount): void {
  const cur = total.get(name);
  total.set(name, { nano: (cur?.nano ?? 0n) + a.nano, format: cur && cur.nano !== 0n ? cur.format : a.format });
}

/**
 * The usage of every name of `names` measured on `r`, summed over `objects` the quota
 * selects; a name no object uses is there with zero.
 */
export function sumQuotaUsage(quota: KubeObject, r: QuotaResource, names: readonly string[], objects: Iterable<KubeObject>, now: Date): Amounts {
  const used: Amounts = new Map();
  for (const n of names) used.set(n, zeroAmount());
  if (names.length === 0) return used;
  for (const o of objects) {
    if (!quotaSelects(quota, r, o)) continue;
    for (const [k, a] of quotaUsage(r, o, now)) if (used.has(k)) addUsage(used, k, a);
  }
  return used;
}

/** The compute resources among a quota's names that some container of the pod does not state. */
export function missingComputeResources(podSpec: JsonMap, names: readonly string[]): string[] {
  const required = names.filter((h) => MUST_SPECIFY.has(h));
  const missing = new Set<string>();
  for (const c of [...objs(podSpec.containers), ...objs(podSpec.initContainers)]) {
    const { requests, limits } = containerAmounts(c);
    const has: Amounts = new Map();
    computeUsage(requests, limits, has);
    for (const n of required) if (!has.has(n)) missing.add(n);
  }
  return [...missing].sort();
}

/** `a=1,b=2` in name order, as kube prints a resource list in quota messages. */
export function prettyPrintAmounts(list: Amounts): string {
  return [...list.keys()]
    .sort()
    .map((k) => `${k}=${formatAmount(list.get(k)!)}`)
    .join(',');
}
