// The connect subresources: pods' `proxy`, `log`, `exec`, `attach` and `portforward`,
// `services/x/proxy` and `nodes/x/proxy`, each a subresource store whose `connect` verb the
// kinds declare served by these handlers.
import type { AddressPolicy } from '../../proxy/location.js';
import type { ConnectRequest, RequestContext, RESTStore, ResourceTable, SimulatedNodes, SubresourceDefinition, SubresourceStore } from '../../rest/index.js';
import { serveSubresourceHandler } from '../subresources.js';
import { NodeConnections, type KubeletClientConfig } from './kubelet.js';
import { NodeProxy } from './nodes.js';
import { PodConnecter } from './pods.js';
import { ServiceProxy } from './services.js';

export { kubeletFlagDefinitions, preferredAddressTypesFromFlags, DEFAULT_PREFERRED_ADDRESS_TYPES, DEFAULT_KUBELET_PORT, type KubeletClientConfig } from './kubelet.js';
export { NodeConnections } from './kubelet.js';
export { PodConnecter, podLogOptions, kubeletLogQuery, kubeletStreamQuery, validateContainer } from './pods.js';
export { ServiceProxy } from './services.js';
export { NodeProxy } from './nodes.js';

export interface ConnectInstallOptions {
  kubelet: KubeletClientConfig;
  /** Which target IPs the proxy subresources may reach; Kubernetes' rule when absent. */
  addressPolicy?: AddressPolicy;
  /** Resolves node host names (DNS when absent). */
  resolveHost?: (host: string) => Promise<string[]>;
  /** Nodes simulated in this process (the node agent). */
  simulatedNodes?: SimulatedNodes;
}

type Connecter = { connect(ctx: RequestContext, namespace: string, name: string, subresource: string, r: ConnectRequest): Promise<void> };

/** The store of one connect subresource of `resource`, answered by `connecter`. */
function connectStore(resource: RESTStore, definition: SubresourceDefinition, connecter: Connecter): SubresourceStore {
  return {
    resource: resource.definition,
    definition,
    connect: (ctx, namespace, name, r) => connecter.connect(ctx, namespace, name, definition.name, r),
  };
}

/**
 * Serves the connect subresources the core kinds declare (`PodConnect`, `ServiceProxy`,
 * `NodeProxy`) in `table`. Call after the table is built.
 */
export function installConnectSubresources(table: ResourceTable, opts: ConnectInstallOptions): void {
  const gv = { group: '', version: 'v1' };
  const pods = table.lookup(gv, 'pods');
  const nodes = table.lookup(gv, 'nodes');
  const endpoints = table.lookup(gv, 'endpoints');
  const policy = opts.addressPolicy ? { addressPolicy: opts.addressPolicy } : {};
  const connections = nodes ? new NodeConnections(nodes, opts.kubelet) : undefined;
  if (connections) {
    const resolve = opts.resolveHost ? { resolve: opts.resolveHost } : {};
    serveSubresourceHandler(table, 'NodeProxy', (store, def) => connectStore(store, def, new NodeProxy({ nodes: store, connections, ...policy, ...resolve })));
    // One connecter serves all of a pods store's connect subresources.
    const podConnecters = new Map<RESTStore, PodConnecter>();
    serveSubresourceHandler(table, 'PodConnect', (store, def) => {
      let connecter = podConnecters.get(store);
      if (!connecter) podConnecters.set(store, (connecter = new PodConnecter({ pods: store, nodes: connections, ...policy, ...(opts.simulatedNodes ? { simulated: opts.simulatedNodes } : {}) })));
      return connectStore(store, def, connecter);
    });
  }
  if (endpoints && pods) {
    serveSubresourceHandler(table, 'ServiceProxy', (store, def) => connectStore(store, def, new ServiceProxy({ services: store, endpoints, pods, ...policy })));
  }
}
