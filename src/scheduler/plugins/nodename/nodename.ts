// NodeName: a pod that names its node (`spec.nodeName` set before scheduling) fits only there.
import { SUCCESS, unresolvable, type FilterPlugin, type Status } from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';

export const ERR_REASON = "node(s) didn't match the requested node name";

export const nodeName: FilterPlugin = {
  name: 'NodeName',
  filter(_state, pod: PodInfo, node: NodeInfo): Status {
    return pod.nodeName === '' || pod.nodeName === node.name ? SUCCESS : unresolvable('NodeName', ERR_REASON);
  },
};
