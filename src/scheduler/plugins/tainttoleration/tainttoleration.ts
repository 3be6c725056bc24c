// TaintToleration: a node's NoSchedule and NoExecute taints must be tolerated; untolerated
// PreferNoSchedule taints lower the node's score.
import { findUntoleratedTaint, formatTaint, toleratesTaint } from '../../../apis/core/helpers/taints.js';
import { SUCCESS, unresolvable, type FilterPlugin, type ScorePlugin, type Status } from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { normalizeReverse } from '../normalize.js';

export const tainttoleration: FilterPlugin & ScorePlugin = {
  name: 'TaintToleration',
  filter(_state, pod: PodInfo, node: NodeInfo): Status {
    const taint = findUntoleratedTaint(node.taints, pod.tolerations, (t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute');
    return taint ? unresolvable('TaintToleration', `node(s) had untolerated taint ${formatTaint(taint)}`) : SUCCESS;
  },
  score(_state, pod: PodInfo, node: NodeInfo): number {
    // Only tolerations that name PreferNoSchedule (or every effect) count here, as in kube.
    const tolerations = pod.tolerations.filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
    let count = 0;
    for (const t of node.taints) if (t.effect === 'PreferNoSchedule' && !tolerations.some((tol) => toleratesTaint(tol, t))) count++;
    return count;
  },
  normalize: normalizeReverse,
};
