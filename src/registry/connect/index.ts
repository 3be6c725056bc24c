// The connect subresources: pods' `proxy`, `log`, `exec`, `attach` and `portforward`,
// `services/x/proxy` and `nodes/x/proxy`, each served by the `connect` verb of its
// resource's Store (installed as a subresource handler).
import type { AddressPolicy } from '../../proxy/location.js';
import type { ConnectRequest, RequestContext, RESTStore, ResourceTable, SimulatedNodes } from '../../rest/index.js';
import { NodeConnections, type KubeletClientConfig } from './kubelet.js';
import { NodeProxy } from './nodes.js';
import { PodConnecter } from './pods.js';
import { ServiceProxy } from './services.js';

export { kubeletFlagDefinitions, preferredAddressTypesFromFlags, DEFAULT_PREFERRED_ADDRESS_TYPES, DEFAULT_KUBELET_PORT, type KubeletClientConfig } from './kubelet.js';
export { NodeConnections } from './kubelet.js';
export { PodConnecter, podLogOptions, kubeletLogQuery, kubeletStreamQuery, validateContainer } from './pods.js';
export { ServiceProxy } from './services.js';
export { NodeProxy } from './nodes.js';

/** The subresources of pods served by connect. */
export const POD_CONNECT_SUBRESOURCES = ['proxy', 'log', 'exec', 'attach', 'portforward'] as const;

export interface ConnectInstallOptions {
  kubelet: KubeletClientConfig;
  /** Which target IPs the proxy subresources may reach; Kubernetes' rule when absent. */
  addressPolicy?: AddressPolicy;
  /** Resolves node host names (DNS when absent). */
  resolveHost?: (host: string) => Promise<string[]>;
  /** Nodes simulated in this process (the node agent). */
  simulatedNodes?: SimulatedNodes;
}

type SubresourceHost = RESTStore & { setSubresourceHandler(name: string, h: Partial<RESTStore>): void };

function hostsSubresources(s: RESTStore | undefined): s is SubresourceHost {
  return s !== undefined && typeof (s as { setSubresourceHandler?: unknown }).setSubresourceHandler === 'function';
}

type Connecter = { connect(ctx: RequestContext, namespace: string, name: string, subresource: string, r: ConnectRequest): Promise<void> };

function handler(c: Connecter): Partial<RESTStore> {
  return { connect: (ctx, namespace, name, subresource, r) => c.connect(ctx, namespace, name, subresource, r) };
}

/** Serves the connect subresources of the core resources in `table`. Call after the table is built. */
export function installConnectSubresources(table: ResourceTable, opts: ConnectInstallOptions): void {
  const gv = { group: '', version: 'v1' };
  const pods = table.lookup(gv, 'pods');
  const nodes = table.lookup(gv, 'nodes');
  const services = table.lookup(gv, 'services');
  const endpoints = table.lookup(gv, 'endpoints');
  const policy = opts.addressPolicy ? { addressPolicy: opts.addressPolicy } : {};
  const connections = nodes ? new NodeConnections(nodes, opts.kubelet) : undefined;
  if (hostsSubresources(nodes) && connections) {
    nodes.setSubresourceHandler('proxy', handler(new NodeProxy({ nodes, connections, ...policy, ...(opts.resolveHost ? { resolve: opts.resolveHost } : {}) })));
  }
  if (hostsSubresources(pods) && connections) {
    const pc = handler(new PodConnecter({ pods, nodes: connections, ...policy, ...(opts.simulatedNodes ? { simulated: opts.simulatedNodes } : {}) }));
    for (const sub of POD_CONNECT_SUBRESOURCES) pods.setSubresourceHandler(sub, pc);
  }
  if (hostsSubresources(services) && endpoints && pods) {
    services.setSubresourceHandler('proxy', handler(new ServiceProxy({ services, endpoints, pods, ...policy })));
  }
}
