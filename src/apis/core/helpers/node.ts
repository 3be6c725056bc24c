// Node status semantics shared by the node agent, the node controllers and the scheduler.
import type { KubeObject } from '../../../apimachinery/types.js';
import { isPlainObject } from '../../../apimachinery/types.js';
import { longDomainKey } from '../../../naming/index.js';
import type { ConditionStatus } from './pod.js';

export interface NodeCondition {
  type: string;
  status: ConditionStatus;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

export function nodeConditions(node: KubeObject): NodeCondition[] {
  const status = isPlainObject(node.status) ? node.status : {};
  return Array.isArray(status.conditions) ? (status.conditions.filter((c) => isPlainObject(c) && typeof c.type === 'string') as unknown as NodeCondition[]) : [];
}

export function nodeCondition(node: KubeObject, type: string): NodeCondition | undefined {
  return nodeConditions(node).find((c) => c.type === type);
}

export function isNodeReady(node: KubeObject): boolean {
  return nodeCondition(node, 'Ready')?.status === 'True';
}

export function isNodeUnschedulable(node: KubeObject): boolean {
  return isPlainObject(node.spec) && node.spec.unschedulable === true;
}

/**
 * The well-known taint keys (`node.kubernetes.io/<name>` in the kubernetes flavor), read when
 * called: the flavor is chosen after modules load.
 */
export function nodeTaintKey(name: 'not-ready' | 'unreachable' | 'unschedulable' | 'memory-pressure' | 'disk-pressure' | 'pid-pressure' | 'network-unavailable' | 'out-of-service'): string {
  return longDomainKey(name, 'node');
}

/**
 * The well-known node labels (`kubernetes.io/hostname`, `topology.kubernetes.io/zone`, ... in
 * the kubernetes flavor), read when called.
 */
export function nodeLabelKey(name: 'hostname' | 'os' | 'arch' | 'zone' | 'region'): string {
  return name === 'zone' || name === 'region' ? longDomainKey(name, 'topology') : longDomainKey(name);
}

/**
 * The conditions with `cond` set, as the kubelet sets its node conditions: an existing one of
 * the same type keeps its `lastTransitionTime` unless its status changes; `lastHeartbeatTime`
 * is what `cond` says. `now` is RFC 3339.
 */
export function withNodeCondition(conditions: readonly NodeCondition[], cond: NodeCondition, now: string): NodeCondition[] {
  let found = false;
  const out = conditions.map((c) => {
    if (c.type !== cond.type) return c;
    found = true;
    const transition = c.status === cond.status && c.lastTransitionTime ? c.lastTransitionTime : (cond.lastTransitionTime ?? now);
    return { ...cond, lastTransitionTime: transition };
  });
  if (!found) out.push({ ...cond, lastTransitionTime: cond.lastTransitionTime ?? now });
  return out;
}
