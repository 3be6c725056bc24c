// NodePorts: a pod's host ports must be free on the node (0.0.0.0 conflicts with every address).
import { SUCCESS, unschedulable, type FilterPlugin, type Status } from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';

export const ERR_REASON = "node(s) didn't have free ports for the requested pod ports";

export const nodePorts: FilterPlugin = {
  name: 'NodePorts',
  filter(_state, pod: PodInfo, node: NodeInfo): Status {
    if (pod.hostPorts.length === 0 || node.usedPorts.size === 0) return SUCCESS;
    for (const want of pod.hostPorts) {
      for (const used of node.usedPorts.keys()) {
        const [ip, protocol, port] = used.split('/');
        if (Number(port) !== want.port || protocol !== want.protocol) continue;
        if (ip === want.ip || ip === '0.0.0.0' || want.ip === '0.0.0.0') return unschedulable('NodePorts', ERR_REASON);
      }
    }
    return SUCCESS;
  },
};
