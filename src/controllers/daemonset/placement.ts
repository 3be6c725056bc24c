// Where a DaemonSet's pods go, as pure functions (kube 1.27): the tolerations every daemon pod
// gets, the required node affinity that pins a pod to its node for the scheduler to bind it,
// and whether a node should run (or keep running) the daemon pod.
import type { KubeObject } from '../../apimachinery/types.js';
import { isPlainObject } from '../../apimachinery/types.js';
import { nodeTaintKey } from '../../apis/core/helpers/node.js';
import { podMatchesNodeSelectorAndAffinity, requiredNodeSelectorTerms } from '../../apis/core/helpers/node-affinity.js';
import { findUntoleratedTaint, nodeTaints, podTolerations, type Toleration } from '../../apis/core/helpers/taints.js';

type PodSpec = Record<string, unknown>;

/**
 * The spec with the daemon tolerations added where missing: not-ready and unreachable
 * (NoExecute), disk/memory/pid pressure and unschedulable (NoSchedule), and network-unavailable
 * (NoSchedule) for host-network pods.
 */
export function withDaemonTolerations(spec: PodSpec): PodSpec {
  const wanted: Toleration[] = [
    { key: nodeTaintKey('not-ready'), operator: 'Exists', effect: 'NoExecute' },
    { key: nodeTaintKey('unreachable'), operator: 'Exists', effect: 'NoExecute' },
    { key: nodeTaintKey('disk-pressure'), operator: 'Exists', effect: 'NoSchedule' },
    { key: nodeTaintKey('memory-pressure'), operator: 'Exists', effect: 'NoSchedule' },
    { key: nodeTaintKey('pid-pressure'), operator: 'Exists', effect: 'NoSchedule' },
    { key: nodeTaintKey('unschedulable'), operator: 'Exists', effect: 'NoSchedule' },
  ];
  if (spec.hostNetwork === true) wanted.push({ key: nodeTaintKey('network-unavailable'), operator: 'Exists', effect: 'NoSchedule' });
  const have = podTolerations({ spec } as KubeObject);
  // An equal toleration is not added twice (kube's AddOrUpdateTolerationInPodSpec).
  const same = (a: Toleration, b: Toleration): boolean => a.key === b.key && (a.operator ?? 'Equal') === b.operator && (a.value ?? '') === '' && a.effect === b.effect;
  return { ...spec, tolerations: [...have, ...wanted.filter((w) => !have.some((t) => same(t, w)))] };
}

/**
 * The spec with a required node affinity of one term, `metadata.name In [node]` (kube's
 * ReplaceDaemonSetPodNodeNameNodeAffinity: other required terms go, preferred ones stay).
 */
export function withNodeAffinity(spec: PodSpec, nodeName: string): PodSpec {
  const affinity = isPlainObject(spec.affinity) ? { ...spec.affinity } : {};
  const nodeAffinity = isPlainObject(affinity.nodeAffinity) ? { ...affinity.nodeAffinity } : {};
  nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = {
    nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }],
  };
  affinity.nodeAffinity = nodeAffinity;
  return { ...spec, affinity };
}

/** The node a daemon pod is for: its `nodeName`, else the one its node affinity pins it to. */
export function targetNodeName(pod: KubeObject): string | undefined {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  if (typeof spec.nodeName === 'string' && spec.nodeName !== '') return spec.nodeName;
  for (const term of requiredNodeSelectorTerms(pod) ?? []) {
    for (const f of term.matchFields ?? []) {
      if (f.key === 'metadata.name' && f.operator === 'In' && f.values?.length === 1) return f.values[0];
    }
  }
  return undefined;
}

export interface NodeFit {
  /** The node should get a daemon pod. */
  shouldRun: boolean;
  /** A daemon pod already there may stay (only a NoExecute taint it does not tolerate evicts it). */
  shouldContinueRunning: boolean;
}

/** Whether `node` should run the daemon pod of `template` (with the daemon tolerations). */
export function nodeShouldRunDaemonPod(template: PodSpec, node: KubeObject): NodeFit {
  const spec = withDaemonTolerations(template);
  const pod = { spec } as KubeObject;
  if (typeof spec.nodeName === 'string' && spec.nodeName !== '' && spec.nodeName !== node.metadata?.name) return { shouldRun: false, shouldContinueRunning: false };
  if (!podMatchesNodeSelectorAndAffinity(pod, node)) return { shouldRun: false, shouldContinueRunning: false };
  const taints = nodeTaints(node);
  const tolerations = podTolerations(pod);
  if (findUntoleratedTaint(taints, tolerations, (t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute')) {
    return { shouldRun: false, shouldContinueRunning: !findUntoleratedTaint(taints, tolerations, (t) => t.effect === 'NoExecute') };
  }
  return { shouldRun: true, shouldContinueRunning: true };
}

/** An int-or-percent of `total`, percentages rounded up (kube's GetScaledValueFromIntOrPercent with roundUp). */
export function scaledValue(value: unknown, total: number): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const m = /^(\d+)%$/.exec(value);
    if (m) return Math.ceil((Number(m[1]) * total) / 100);
    if (/^\d+$/.test(value)) return Number(value);
  }
  return 0;
}
