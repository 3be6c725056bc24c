// NodeUnschedulable: a cordoned node (`spec.unschedulable`) takes only pods that tolerate the
// `unschedulable` NoSchedule taint.
import { isNodeUnschedulable, nodeTaintKey } from '../../../apis/core/helpers/node.js';
import { toleratesTaint } from '../../../apis/core/helpers/taints.js';
import { SUCCESS, unresolvable, type FilterPlugin, type Status } from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';

export const ERR_REASON = 'node(s) were unschedulable';

export const nodeUnschedulable: FilterPlugin = {
  name: 'NodeUnschedulable',
  filter(_state, pod: PodInfo, node: NodeInfo): Status {
    if (!isNodeUnschedulable(node.node)) return SUCCESS;
    const taint = { key: nodeTaintKey('unschedulable'), effect: 'NoSchedule' as const };
    return pod.tolerations.some((t) => toleratesTaint(t, taint)) ? SUCCESS : unresolvable('NodeUnschedulable', ERR_REASON);
  },
};
