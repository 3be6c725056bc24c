// NodeAffinity: `nodeSelector` and required node affinity filter; preferred terms score.
import { podMatchesNodeSelectorAndAffinity, preferredAffinityWeight } from '../../../apis/core/helpers/node-affinity.js';
import { SUCCESS, unresolvable, type FilterPlugin, type ScorePlugin, type Status } from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { normalizeDefault } from '../normalize.js';

export const ERR_REASON = "node(s) didn't match Pod's node affinity/selector";

export const nodeAffinity: FilterPlugin & ScorePlugin = {
  name: 'NodeAffinity',
  filter(_state, pod: PodInfo, node: NodeInfo): Status {
    return podMatchesNodeSelectorAndAffinity(pod.pod, node.node) ? SUCCESS : unresolvable('NodeAffinity', ERR_REASON);
  },
  score(_state, pod: PodInfo, node: NodeInfo): number {
    return preferredAffinityWeight(pod.pod, node.node);
  },
  normalize: normalizeDefault,
};
