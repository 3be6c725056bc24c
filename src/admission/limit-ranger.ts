// LimitRanger: the LimitRange objects of a namespace give containers default requests and
// limits (recorded in an annotation), and bound what containers, pods and volume claims
// may ask for (minimum, maximum, and the largest limit-to-request ratio).
import type { KubeObject } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';
import { NamespacedLookup } from './namespaced-lookup.js';
import { longDomainKey } from '../naming/index.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './types.js';
import { amountOf, amountsOf, canonical, formatAmount, containerAmounts, containerResources, podTotals, type Amount, type Amounts } from '../apis/core/helpers/resources.js';
import { admissionForbidden, isResource, mapsAt, specOf, stringAt, type JsonMap } from './util.js';
import { setOwn } from '../apimachinery/own.js';
import { isPlainObject } from '../apimachinery/types.js';

const LIMIT_RANGES = { group: '', version: 'v1', resource: 'limitranges' };

function limitRangerAnnotation(): string {
  return longDomainKey('limit-ranger');
}

interface LimitItem {
  type: string;
  max: JsonMap;
  min: JsonMap;
  default: JsonMap;
  defaultRequest: JsonMap;
  maxLimitRequestRatio: JsonMap;
}

const mapOr = (v: unknown): JsonMap => (isPlainObject(v) ? { ...v } : {});

/** The items of a LimitRange with the container defaults filled as the API fills them (limit from max, request from limit or min). */
function limitItems(lr: KubeObject): LimitItem[] {
  const spec = specOf(lr);
  return mapsAt(spec, 'limits').map((l) => {
    const item: LimitItem = {
      type: stringAt(l, 'type') ?? '',
      max: mapOr(l.max),
      min: mapOr(l.min),
      default: mapOr(l.default),
      defaultRequest: mapOr(l.defaultRequest),
      maxLimitRequestRatio: mapOr(l.maxLimitRequestRatio),
    };
    if (item.type === 'Container') {
      for (const [k, v] of Object.entries(item.max)) if (!Object.hasOwn(item.default, k)) setOwn(item.default, k, v);
      for (const [k, v] of Object.entries(item.default)) if (!Object.hasOwn(item.defaultRequest, k)) setOwn(item.defaultRequest, k, v);
      for (const [k, v] of Object.entries(item.min)) if (!Object.hasOwn(item.defaultRequest, k)) setOwn(item.defaultRequest, k, v);
    }
    return item;
  });
}

/** Fills the containers' missing requests and limits from the ranges; returns the annotation text, or undefined when nothing was set. */
function applyDefaults(podSpec: JsonMap, ranges: KubeObject[]): string | undefined {
  const defaults: { requests: JsonMap; limits: JsonMap } = { requests: {}, limits: {} };
  for (const lr of ranges) {
    for (const item of limitItems(lr)) {
      if (item.type !== 'Container') continue;
      // Resource names come from the object: copied as own members, never through setters.
      for (const [k, v] of Object.entries(item.defaultRequest)) setOwn(defaults.requests, k, v);
      for (const [k, v] of Object.entries(item.default)) setOwn(defaults.limits, k, v);
    }
  }
  if (Object.keys(defaults.requests).length === 0 && Object.keys(defaults.limits).length === 0) return undefined;
  const notes: string[] = [];
  const apply = (containers: JsonMap[], what: string): void => {
    for (const c of containers) {
      const { requests, limits } = containerResources(c);
      // A limit without a request is also the request (the API's own pod default).
      for (const [k, v] of Object.entries(limits)) if (!Object.hasOwn(requests, k)) setOwn(requests, k, v);
      const setLimits = Object.keys(defaults.limits).filter((k) => !Object.hasOwn(limits, k)).sort();
      const setRequests = Object.keys(defaults.requests).filter((k) => !Object.hasOwn(requests, k)).sort();
      for (const k of setLimits) setOwn(limits, k, defaults.limits[k]);
      for (const k of setRequests) setOwn(requests, k, defaults.requests[k]);
      const name = stringAt(c, 'name') ?? '';
      if (setRequests.length > 0) notes.push(`${setRequests.join(', ')} request for ${what} ${name}`);
      if (setLimits.length > 0) notes.push(`${setLimits.join(', ')} limit for ${what} ${name}`);
    }
  };
  apply(mapsAt(podSpec, 'containers'), 'container');
  apply(mapsAt(podSpec, 'initContainers'), 'init container');
  return notes.length > 0 ? `LimitRanger plugin set: ${notes.join('; ')}` : undefined;
}

// The comparisons work in thousandths, rounded up, as the quantities' milli-values are.
const milli = (a: Amount): bigint => {
  const q = a.nano / 1_000_000n;
  return a.nano > q * 1_000_000n ? q + 1n : q;
};

function minConstraint(kind: string, name: string, enforced: unknown, requests: Amounts, limits: Amounts): string | undefined {
  const e = amountOf(enforced);
  if (!e) return undefined;
  const req = requests.get(name);
  const lim = limits.get(name);
  if (!req) return `minimum ${name} usage per ${kind} is ${canonical(enforced)}.  No request is specified`;
  if (milli(req) < milli(e)) return `minimum ${name} usage per ${kind} is ${canonical(enforced)}, but request is ${formatted(req)}`;
  if (lim && milli(lim) < milli(e)) return `minimum ${name} usage per ${kind} is ${canonical(enforced)}, but limit is ${formatted(lim)}`;
  return undefined;
}

function maxConstraint(kind: string, name: string, enforced: unknown, requests: Amounts, limits: Amounts): string | undefined {
  const e = amountOf(enforced);
  if (!e) return undefined;
  const req = requests.get(name);
  const lim = limits.get(name);
  if (!lim) return `maximum ${name} usage per ${kind} is ${canonical(enforced)}.  No limit is specified`;
  if (milli(lim) > milli(e)) return `maximum ${name} usage per ${kind} is ${canonical(enforced)}, but limit is ${formatted(lim)}`;
  if (req && milli(req) > milli(e)) return `maximum ${name} usage per ${kind} is ${canonical(enforced)}, but request is ${formatted(req)}`;
  return undefined;
}

/** For kinds that have requests only (volume claims). */
function maxRequestConstraint(kind: string, name: string, enforced: unknown, requests: Amounts): string | undefined {
  const e = amountOf(enforced);
  if (!e) return undefined;
  const req = requests.get(name);
  if (!req) return `maximum ${name} usage per ${kind} is ${canonical(enforced)}.  No request is specified`;
  if (milli(req) > milli(e)) return `maximum ${name} usage per ${kind} is ${canonical(enforced)}, but request is ${formatted(req)}`;
  return undefined;
}

function ratioConstraint(kind: string, name: string, enforced: unknown, requests: Amounts, limits: Amounts): string | undefined {
  const e = amountOf(enforced);
  if (!e) return undefined;
  const req = requests.get(name);
  const lim = limits.get(name);
  if (!req || milli(req) === 0n) return `${name} max limit to request ratio per ${kind} is ${canonical(enforced)}, but no request is specified or request is 0`;
  if (!lim || milli(lim) === 0n) return `${name} max limit to request ratio per ${kind} is ${canonical(enforced)}, but no limit is specified or limit is 0`;
  const observed = Number(milli(lim)) / Number(milli(req));
  if (observed * 1000 > Number(milli(e))) {
    return `${name} max limit to request ratio per ${kind} is ${canonical(enforced)}, but provided ratio is ${observed.toFixed(6)}`;
  }
  return undefined;
}

const formatted = (a: Amount): string => formatAmount(a);

function check(kind: string, item: LimitItem, requests: Amounts, limits: Amounts, errors: string[]): void {
  const push = (e: string | undefined): void => {
    if (e !== undefined) errors.push(e);
  };
  for (const k of Object.keys(item.min).sort()) push(minConstraint(kind, k, item.min[k], requests, limits));
  for (const k of Object.keys(item.max).sort()) push(maxConstraint(kind, k, item.max[k], requests, limits));
  for (const k of Object.keys(item.maxLimitRequestRatio).sort()) push(ratioConstraint(kind, k, item.maxLimitRequestRatio[k], requests, limits));
}

/** The violations of the ranges by a pod. */
function podViolations(podSpec: JsonMap, ranges: KubeObject[]): string[] {
  const errors: string[] = [];
  for (const lr of ranges) {
    for (const item of limitItems(lr)) {
      if (item.type === 'Container') {
        for (const c of [...mapsAt(podSpec, 'containers'), ...mapsAt(podSpec, 'initContainers')]) {
          const { requests, limits } = containerAmounts(c);
          check('Container', item, requests, limits, errors);
        }
      } else if (item.type === 'Pod') {
        check('Pod', item, podTotals(podSpec, 'requests'), podTotals(podSpec, 'limits'), errors);
      }
    }
  }
  return errors;
}

/** The violations of the ranges by a volume claim's storage request. */
function claimViolations(claimSpec: JsonMap, ranges: KubeObject[]): string[] {
  const errors: string[] = [];
  const resources = isPlainObject(claimSpec.resources) ? claimSpec.resources : {};
  const requests = amountsOf(resources.requests);
  for (const lr of ranges) {
    for (const item of limitItems(lr)) {
      if (item.type !== 'PersistentVolumeClaim') continue;
      for (const k of Object.keys(item.min).sort()) {
        const e = minConstraint('PersistentVolumeClaim', k, item.min[k], requests, new Map());
        if (e) errors.push(e);
      }
      for (const k of Object.keys(item.max).sort()) {
        const e = maxRequestConstraint('PersistentVolumeClaim', k, item.max[k], requests);
        if (e) errors.push(e);
      }
    }
  }
  return errors;
}

/** Several errors read as Kubernetes' aggregate: `[a, b]` (duplicates once), one error alone. */
export function aggregate(errors: string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

export class LimitRanger implements AdmissionPlugin {
  readonly name = 'LimitRanger';
  private readonly lookup: NamespacedLookup;
  constructor(client: ApiClient) {
    this.lookup = new NamespacedLookup(client, LIMIT_RANGES);
  }

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  /** Pods are checked when created (their containers cannot change later); claims on every write. */
  private applies(attrs: AdmissionAttributes): 'pod' | 'claim' | undefined {
    if (!attrs.object || attrs.oldObject?.metadata?.deletionTimestamp) return undefined;
    if (isResource(attrs, '', 'pods') && attrs.operation === 'CREATE') return 'pod';
    if (isResource(attrs, '', 'persistentvolumeclaims')) return 'claim';
    return undefined;
  }

  /** From the watch cache, live only when it shows none (see `NamespacedLookup`). */
  private ranges(namespace: string): Promise<KubeObject[]> {
    return this.lookup.list(namespace);
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (this.applies(attrs) !== 'pod' || !attrs.object) return;
    const ranges = await this.ranges(attrs.namespace);
    if (ranges.length === 0) return;
    if (!isPlainObject(attrs.object.spec)) attrs.object.spec = {};
    const note = applyDefaults(attrs.object.spec as JsonMap, ranges);
    if (note) {
      const meta = (attrs.object.metadata ??= {});
      meta.annotations = { ...(meta.annotations ?? {}), [limitRangerAnnotation()]: note };
    }
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const what = this.applies(attrs);
    if (!what || !attrs.object) return;
    const ranges = await this.ranges(attrs.namespace);
    if (ranges.length === 0) return;
    const spec = specOf(attrs.object) ?? {};
    const errors = what === 'pod' ? podViolations(spec, ranges) : claimViolations(spec, ranges);
    if (errors.length > 0) throw admissionForbidden(attrs, aggregate(errors));
  }
}
