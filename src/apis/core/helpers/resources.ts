// Resource lists (`{cpu: "500m", memory: "1Gi"}`) as exact amounts: sums, maxima and
// comparisons for LimitRanger, ResourceQuota and the scheduler's fit, printed back in
// Kubernetes' canonical form.
import { formatQuantity, nanoValue, parseQuantity, type Quantity } from '../../../schema/quantity.js';
import { objs, type JsonObject as JsonMap } from '../../util.js';
import { isPlainObject } from '../../../apimachinery/types.js';

/** An exact amount in units of 10^-9, with the notation it was written in. */
export interface Amount {
  nano: bigint;
  format: Quantity['format'];
}

export type Amounts = Map<string, Amount>;

export function amountOf(value: unknown): Amount | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  try {
    const q = parseQuantity(String(value));
    return { nano: nanoValue(q), format: q.format };
  } catch {
    return undefined;
  }
}

export function formatAmount(a: Amount): string {
  const negative = a.nano < 0n;
  return formatQuantity({ negative, mantissa: negative ? -a.nano : a.nano, scale: -9, format: a.format });
}

/** The canonical form of a quantity as written (unparseable text is shown as is). */
export function canonical(value: unknown): string {
  const a = amountOf(value);
  return a ? formatAmount(a) : String(value);
}

export function amountsOf(list: unknown): Amounts {
  const out: Amounts = new Map();
  if (isPlainObject(list)) {
    for (const [k, v] of Object.entries(list)) {
      const a = amountOf(v);
      if (a) out.set(k, a);
    }
  }
  return out;
}

export function addInto(total: Amounts, name: string, a: Amount): void {
  const cur = total.get(name);
  total.set(name, cur ? { nano: cur.nano + a.nano, format: cur.format } : { ...a });
}

function maxInto(total: Amounts, name: string, a: Amount): void {
  const cur = total.get(name);
  if (!cur || a.nano > cur.nano) total.set(name, { ...a });
}

interface ContainerResources {
  requests: JsonMap;
  limits: JsonMap;
}

/** The container's resource maps, created when absent. */
export function containerResources(container: JsonMap): ContainerResources {
  if (!isPlainObject(container.resources)) container.resources = {};
  const resources = container.resources as JsonMap;
  if (!isPlainObject(resources.requests)) resources.requests = {};
  if (!isPlainObject(resources.limits)) resources.limits = {};
  return { requests: resources.requests as JsonMap, limits: resources.limits as JsonMap };
}

function readResources(container: JsonMap, which: 'requests' | 'limits'): Amounts {
  const resources = isPlainObject(container.resources) ? container.resources : {};
  return amountsOf(resources[which]);
}

/**
 * What the pod as a whole asks for: the sum over its containers, at least the largest
 * init container (they run one at a time, before the others), plus the pod overhead.
 */
export function podTotals(spec: JsonMap, which: 'requests' | 'limits'): Amounts {
  const total: Amounts = new Map();
  for (const c of objs(spec.containers)) for (const [k, a] of readResources(c, which)) addInto(total, k, a);
  for (const c of objs(spec.initContainers)) for (const [k, a] of readResources(c, which)) maxInto(total, k, a);
  for (const [k, a] of amountsOf(spec.overhead)) addInto(total, k, a);
  return total;
}

export function containerAmounts(container: JsonMap): { requests: Amounts; limits: Amounts } {
  return { requests: readResources(container, 'requests'), limits: readResources(container, 'limits') };
}
