// Nodes: status may be set on create (kubelets register with it), `spec.unschedulable`
// as a field selector, and the node columns.
import type { KubeObject } from '../../apimachinery/types.js';
import { longDomainKey } from '../../naming/index.js';
import type { KindSpec } from '../strategy.js';
import { nodeProxy } from './connect.js';
import { ageColumn, column, nameColumn, since, wide } from '../table.js';
import { at, meta, obj, objs, str } from '../util.js';

function nodeStatus(o: KubeObject): string {
  const ready = objs(at(o, 'status.conditions')).find((c) => c.type === 'Ready');
  const parts = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (at(o, 'spec.unschedulable') === true) parts.push('SchedulingDisabled');
  return parts.join(',');
}

/** Roles from `node-role.<domain>/<role>` label keys and the `<domain>/role` label's value. */
function nodeRoles(o: KubeObject): string {
  const rolePrefix = longDomainKey('', 'node-role');
  const roleLabel = longDomainKey('role');
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(meta(o).labels ?? {})) {
    if (k.startsWith(rolePrefix) && k.length > rolePrefix.length) roles.add(k.slice(rolePrefix.length));
    else if (k === roleLabel && v !== '') roles.add(v);
  }
  return roles.size > 0 ? [...roles].sort().join(',') : '<none>';
}

function address(o: KubeObject, type: string): string {
  return str(objs(at(o, 'status.addresses')).find((a) => a.type === type)?.address) ?? '<none>';
}

const info = (o: KubeObject, key: string): string => str(at(o, `status.nodeInfo.${key}`)) || '<unknown>';

export const nodes: KindSpec = {
  // Kubelets register nodes with their status.
  clearStatusOnCreate: false,
  subresources: { proxy: nodeProxy },
  defaults(o) {
    // Without a reported allocatable, all of the capacity is allocatable.
    const status = obj(o.status);
    const capacity = obj(status?.capacity);
    if (status && capacity && status.allocatable === undefined) status.allocatable = { ...capacity };
  },
  fields: { 'spec.unschedulable': (o) => String(at(o, 'spec.unschedulable') === true) },
  table: {
    columns: [
      nameColumn,
      column('Status', 'string', 'The status of the node'),
      column('Roles', 'string', 'The roles of the node'),
      ageColumn,
      column('Version', 'string', 'Kubelet Version reported by the node.'),
      wide('Internal-IP', 'string', 'List of addresses reachable to the node. Queried from cloud provider, if available.'),
      wide('External-IP', 'string', 'List of addresses reachable to the node. Queried from cloud provider, if available.'),
      wide('OS-Image', 'string', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).'),
      wide('Kernel-Version', 'string', "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."),
      wide('Container-Runtime', 'string', 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).'),
    ],
    cells: (o, now) => [
      meta(o).name ?? '',
      nodeStatus(o),
      nodeRoles(o),
      since(meta(o).creationTimestamp, now),
      str(at(o, 'status.nodeInfo.kubeletVersion')) ?? '',
      address(o, 'InternalIP'),
      address(o, 'ExternalIP'),
      info(o, 'osImage'),
      info(o, 'kernelVersion'),
      info(o, 'containerRuntimeVersion'),
    ],
  },
};
