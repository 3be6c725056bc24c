// What taints a node's conditions call for (kube's node lifecycle rules), pure: NoSchedule
// taints for every unhealthy condition and for a cordon, NoExecute taints for a node that is
// not ready or unreachable.
import type { KubeObject } from '../../apimachinery/types.js';
import { isNodeUnschedulable, nodeConditions, nodeTaintKey } from '../../apis/core/helpers/node.js';
import type { Taint } from '../../apis/core/helpers/taints.js';

type TaintName = Parameters<typeof nodeTaintKey>[0];

/** Condition type and status to the NoSchedule taint they call for. */
const CONDITION_TAINTS: Record<string, Partial<Record<string, TaintName>>> = {
  Ready: { False: 'not-ready', Unknown: 'unreachable' },
  MemoryPressure: { True: 'memory-pressure' },
  DiskPressure: { True: 'disk-pressure' },
  PIDPressure: { True: 'pid-pressure' },
  NetworkUnavailable: { True: 'network-unavailable' },
};

/** Every taint key this controller manages (others on the node are left alone). */
export function managedNoScheduleKeys(): Set<string> {
  return new Set<string>([...Object.values(CONDITION_TAINTS).flatMap((m) => Object.values(m).map((n) => nodeTaintKey(n!))), nodeTaintKey('unschedulable')]);
}

export function desiredNoScheduleTaints(node: KubeObject): Taint[] {
  const out: Taint[] = [];
  for (const c of nodeConditions(node)) {
    const name = CONDITION_TAINTS[c.type]?.[c.status];
    if (name) out.push({ key: nodeTaintKey(name), effect: 'NoSchedule' });
  }
  if (isNodeUnschedulable(node)) out.push({ key: nodeTaintKey('unschedulable'), effect: 'NoSchedule' });
  return out;
}

/** `not-ready` or `unreachable` NoExecute, by the Ready condition; none for a ready node. */
export function desiredNoExecuteTaint(node: KubeObject): TaintName | undefined {
  const ready = nodeConditions(node).find((c) => c.type === 'Ready');
  if (ready?.status === 'False') return 'not-ready';
  if (ready?.status === 'Unknown') return 'unreachable';
  return undefined;
}

/**
 * The node's taints with the managed ones set to `noSchedule` and the NoExecute one to
 * `noExecute` (keeping `timeAdded` of a taint already there); undefined when nothing changes.
 */
export function reconcileTaints(current: readonly Taint[], noSchedule: readonly Taint[], noExecute: TaintName | undefined, now: string): Taint[] | undefined {
  const managed = managedNoScheduleKeys();
  const executeKeys = new Set([nodeTaintKey('not-ready'), nodeTaintKey('unreachable')]);
  const kept = current.filter((t) => !(t.effect === 'NoSchedule' && managed.has(t.key)) && !(t.effect === 'NoExecute' && executeKeys.has(t.key)));
  const next: Taint[] = [...kept];
  for (const t of noSchedule) next.push(current.find((c) => c.key === t.key && c.effect === 'NoSchedule') ?? t);
  if (noExecute) {
    const key = nodeTaintKey(noExecute);
    next.push(current.find((c) => c.key === key && c.effect === 'NoExecute') ?? { key, effect: 'NoExecute', timeAdded: now });
  }
  const same = next.length === current.length && next.every((t) => current.includes(t));
  return same ? undefined : next;
}
