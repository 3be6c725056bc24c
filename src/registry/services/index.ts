// Service networking: the `--service-cluster-ip-range` and `--service-node-port-range`
// flags, the allocating services Store, and the server's own Service in `default` (the
// first address of the range, port 443 to the secure port) with its Endpoints and
// EndpointSlice.
import { ApiError } from '../../apimachinery/errors.js';
import type { FlagDefinition, ParsedFlags } from '../../apimachinery/flags.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { group, longDomainKey, productName } from '../../naming/index.js';
import type { Storage } from '../../storage/interface.js';
import type { RESTStore, RequestContext, ResourceTable } from '../../rest/index.js';
import { ServiceAllocations, type Allocated, type AllocationOwner } from './allocations.js';
import { nodePortOf, portsOf, specOf, strings } from '../../apis/core/service-fields.js';
import { ServiceAllocator, type ServiceNetwork } from './allocator.js';
import { familyOf, parseIP, parsePortRange, parseServiceClusterIPRanges } from '../../apis/core/service-ip.js';
import { GenericStore } from '../store.js';
import { ServiceREST } from './rest.js';
import { deepEqual } from '../../apimachinery/equality.js';

export { ServiceAllocations } from './allocations.js';
export { AllocationTransaction, ServiceAllocator, type ServiceNetwork } from './allocator.js';
export { ServiceREST } from './rest.js';
export { ServiceIPRange, parsePortRange, parseServiceClusterIPRanges, type PortRange } from '../../apis/core/service-ip.js';
export { dropTypeDependentFields, validateClusterIPFields } from '../../apis/core/service-fields.js';

export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';
export const DEFAULT_SERVICE_NODE_PORT_RANGE = '30000-32767';

export const serviceFlagDefinitions: FlagDefinition[] = [
  {
    name: 'service-cluster-ip-range',
    type: 'string',
    default: DEFAULT_SERVICE_CLUSTER_IP_RANGE,
    usage: 'A CIDR notation IP range from which to assign service cluster IPs; two CIDRs of different IP families (comma-separated) make services dual-stack capable.',
  },
  {
    name: 'service-node-port-range',
    type: 'string',
    default: DEFAULT_SERVICE_NODE_PORT_RANGE,
    usage: "A port range to reserve for services with NodePort visibility. Example: '30000-32767'. Inclusive at both ends of the range.",
  },
];

/** The two flags as a ServiceNetwork; a bad value throws an Error (a start-up error). */
export function serviceNetworkFromFlags(flags: ParsedFlags): ServiceNetwork {
  return {
    ipRanges: parseServiceClusterIPRanges(flags.string('service-cluster-ip-range') ?? DEFAULT_SERVICE_CLUSTER_IP_RANGE),
    nodePorts: parsePortRange(flags.string('service-node-port-range') ?? DEFAULT_SERVICE_NODE_PORT_RANGE),
  };
}

/**
 * Replaces the services Store of `table` by one that allocates cluster IPs and node ports,
 * recorded in `storage`. Call after the table is built and before serving.
 */
export function installServiceAllocation(table: ResourceTable, opts: { storage: Storage; network: ServiceNetwork }): ServiceREST | undefined {
  const gv = { group: '', version: 'v1' };
  const services = table.lookup(gv, 'services');
  if (!services || services instanceof ServiceREST) return services;
  if (!(services instanceof GenericStore)) throw new Error('services: the allocating store wraps the generic Store');
  // A record is leaked when its service is gone or holds other values.
  const isHeld = async (owner: AllocationOwner, value: Allocated): Promise<boolean> => {
    if (!services.get) return true;
    try {
      return holds(await services.get(systemContext(), owner.namespace, owner.name, {}), value);
    } catch (e) {
      if (isCode(e, 404)) return false;
      throw e;
    }
  };
  const allocator = new ServiceAllocator(opts.network, new ServiceAllocations(opts.storage, { isHeld }));
  const rest = new ServiceREST(services, allocator, table.lookup(gv, 'endpoints'));
  table.add(rest);
  return rest;
}

/** Whether a stored service holds an address or node port. */
function holds(svc: KubeObject, value: Allocated): boolean {
  const spec = specOf(svc);
  if ('ip' in value) {
    const want = parseIP(value.ip);
    return strings(spec.clusterIPs).some((ip) => {
      const got = parseIP(ip);
      return !!got && !!want && got.family === want.family && got.value === want.value;
    });
  }
  return portsOf(spec).some((p) => nodePortOf(p) === value.port) || spec.healthCheckNodePort === value.port;
}

export interface MasterServiceOptions {
  network: ServiceNetwork;
  /** The address clients reach this server at (the Endpoints address). */
  address: string;
  securePort: number;
}

const systemContext = (): RequestContext => ({
  user: { username: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] },
  signal: new AbortController().signal,
  warnings: [],
});

function isCode(e: unknown, code: number): boolean {
  return e instanceof ApiError && e.code === code;
}

/** The server's own Service, its Endpoints and EndpointSlice, as they should be. */
export function masterServiceObjects(opts: MasterServiceOptions): { service: KubeObject; endpoints: KubeObject; slice: KubeObject } {
  const name = productName();
  const range = opts.network.ipRanges[0];
  if (!range) throw new Error('no service cluster IP range');
  const clusterIP = range.at(0);
  const service: KubeObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default', labels: { component: 'apiserver', provider: name } },
    spec: {
      type: 'ClusterIP',
      clusterIP,
      clusterIPs: [clusterIP],
      ipFamilyPolicy: 'SingleStack',
      ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: opts.securePort }],
      sessionAffinity: 'None',
    },
  };
  const port = { name: 'https', port: opts.securePort, protocol: 'TCP' };
  const endpoints: KubeObject = {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name, namespace: 'default', labels: { [longDomainKey('skip-mirror', 'endpointslice')]: 'true' } },
    subsets: [{ addresses: [{ ip: opts.address }], ports: [port] }],
  };
  const slice: KubeObject = {
    apiVersion: `${group('discovery')}/v1`,
    kind: 'EndpointSlice',
    metadata: { name, namespace: 'default', labels: { [longDomainKey('service-name')]: name } },
    addressType: familyOf(opts.address) === 'IPv6' ? 'IPv6' : 'IPv4',
    endpoints: [{ addresses: [opts.address], conditions: { ready: true } }],
    ports: [port],
  };
  return { service, endpoints, slice };
}

async function ensure(store: RESTStore | undefined, ctx: RequestContext, want: KubeObject, same: (current: KubeObject) => boolean): Promise<void> {
  if (!store?.get || !store.create || !store.update) return;
  const name = want.metadata?.name ?? '';
  const ns = want.metadata?.namespace ?? '';
  let current: KubeObject | undefined;
  try {
    current = await store.get(ctx, ns, name, {});
  } catch (e) {
    if (!isCode(e, 404)) throw e;
  }
  if (!current) {
    try {
      await store.create(ctx, ns, want, { dryRun: false });
    } catch (e) {
      // Another server sharing the store created it first.
      if (!isCode(e, 409)) throw e;
    }
    return;
  }
  if (same(current)) return;
  const base = current;
  await store.update(ctx, ns, name, () => ({ ...want, metadata: { ...base.metadata, ...want.metadata } }), { dryRun: false });
}

/**
 * Creates the server's Service in `default` when missing, and points its Endpoints and
 * EndpointSlice at this server. Needs the `default` namespace.
 */
export async function ensureMasterService(table: ResourceTable, opts: MasterServiceOptions): Promise<void> {
  const ctx = systemContext();
  const { service, endpoints, slice } = masterServiceObjects(opts);
  const core = { group: '', version: 'v1' };
  await ensure(table.lookup(core, 'services'), ctx, service, () => true);
  const sameSubsets = (cur: KubeObject): boolean => deepEqual(cur.subsets, endpoints.subsets);
  const sameSlice = (cur: KubeObject): boolean =>
    deepEqual(cur.endpoints, slice.endpoints) && deepEqual(cur.ports, slice.ports);
  // Together: the store commits concurrent writes as one transaction.
  await Promise.all([
    ensure(table.lookup(core, 'endpoints'), ctx, endpoints, sameSubsets),
    ensure(table.lookup({ group: group('discovery'), version: 'v1' }, 'endpointslices'), ctx, slice, sameSlice),
  ]);
}
