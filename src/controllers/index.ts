// The in-process controllers (the informers and the work queue they use live in client/).
import { readFileSync } from 'node:fs';
import type { ApiClient } from '../client/types.js';
import type { ResourceTable } from '../rest/index.js';
import { SharedInformerFactory } from '../client/informer-factory.js';
import { crdResource } from '../apis/apiextensions/index.js';
import { startCRDControllers } from './crd/index.js';
import { startNamespaceController } from './namespace/controller.js';
import type { RunningController } from './types.js';
import { ensureSystemPriorityClasses } from './priority-classes.js';
import { startRootCAPublisher } from './root-ca-publisher.js';
import { startServiceAccountController } from './serviceaccounts.js';
import { DiscoveredResourceTable, discoverFromTable } from './discovery.js';
import { ControllerManager, type ManagerLeaderElection } from './manager.js';
import type { Clock } from '../apimachinery/clock.js';
import type { FeatureGate } from '../apimachinery/features.js';
import type { ControllerContext, ControllerDescriptor, ControllerOptions } from './types.js';
import { garbageCollectorController } from './garbagecollector/index.js';
import { tokenControllers } from './tokens/index.js';
import { batchControllers } from './batch/index.js';
import { disruptionControllerDescriptor } from './disruption/index.js';
import { nodeLifecycleControllerDescriptor } from './nodelifecycle/controller.js';
import { csrApprovingController, csrCleanerController, csrSigningController } from './certificates/index.js';
import { volumeProtectionControllers } from './volume/index.js';
import { persistentVolumeBinderDescriptor } from './persistentvolume/index.js';
import { podGCControllerDescriptor } from './podgc/index.js';
import { replicaSetControllerDescriptor } from './replicaset/index.js';
import { deploymentControllerDescriptor } from './deployment/index.js';
import { replicationControllerDescriptor } from './replicationcontroller/index.js';
import { endpointControllerDescriptor } from './endpoint/index.js';
import { endpointSliceControllerDescriptor } from './endpointslice/index.js';
import { endpointSliceMirroringControllerDescriptor } from './endpointslicemirroring/index.js';
import { resourceQuotaControllerDescriptor } from './resourcequota/index.js';
import { statefulSetControllerDescriptor } from './statefulset/index.js';
import { daemonSetControllerDescriptor } from './daemonset/index.js';
import { nodeIpamControllerDescriptor, type NodeIpamConfig } from './nodeipam/index.js';

export {
  NamespaceController,
  NAMESPACES,
  startNamespaceController,
  type NamespaceControllerOptions,
} from './namespace/controller.js';
export type * from './types.js';
export { deleteAllContent, deletableResources, deletionConditions, type NamespaceCondition } from './namespace/deleter.js';
export { ensureSystemNamespaces, systemNamespaceNames } from './system-namespaces.js';
export { PerNamespaceObjectController, type PerNamespaceObjectSpec, type PerNamespaceOptions } from './per-namespace.js';
export { defaultServiceAccount, startServiceAccountController } from './serviceaccounts.js';
export { descriptionAnnotation, repairRootCA, rootCAConfigMap, startRootCAPublisher } from './root-ca-publisher.js';
export { ensureSystemPriorityClasses, systemPriorityClasses } from './priority-classes.js';
export { startCRDControllers } from './crd/index.js';
export {
  ControllerManager,
  DEFAULT_LEASE_NAME,
  DISABLED_BY_DEFAULT_CONTROLLERS,
  isControllerEnabled,
  KNOWN_CONTROLLERS,
  leaderIdentity,
  selectControllers,
  validateControllers,
  type ControllerManagerOptions,
  type ManagerLeaderElection,
} from './manager.js';
export { DiscoveredResourceTable, discoverFromServer, discoverFromTable, type DiscoveryTransport } from './discovery.js';
export {
  DEFAULT_NODE_CIDR_MASK_SIZE_IPV4,
  DEFAULT_NODE_CIDR_MASK_SIZE_IPV6,
  DEFAULT_SIMULATED_CLUSTER_CIDR,
  nodeIpamConfig,
  NodeIpamConfigError,
  RANGE_ALLOCATOR,
  type NodeIpamConfig,
  type NodeIpamFlags,
} from './nodeipam/index.js';
export { LeaderElector, leasesResource, validateLeaderElection, type LeaderElectionConfig, type LeaseSpec } from './leader-election.js';

export interface BuiltinControllersOptions {
  /** The served resources (in the server); outside it the namespace controller follows discovery. */
  table?: ResourceTable;
  /** The cluster CA (PEM) the root CA publisher puts in every namespace; no publisher without it. */
  rootCA?: () => string | undefined;
  /** The node IPAM settings (`--allocate-node-cidrs`, `--cluster-cidr`, ...); no allocation when absent. */
  nodeIpam?: NodeIpamConfig;
}

/** How often a namespace controller outside the server re-reads discovery. */
const REDISCOVERY_MS = 30_000;

async function namespaceTable(ctx: ControllerContext, table: ResourceTable | undefined): Promise<{ table: ResourceTable; stop(): void }> {
  if (table) return { table, stop() {} };
  const discovered = new DiscoveredResourceTable();
  discovered.refresh(await ctx.discover());
  let cancel = (): void => {};
  const again = (): void => {
    cancel = ctx.clock.schedule(REDISCOVERY_MS, () => {
      ctx.discover().then((r) => discovered.refresh(r), ctx.onError).finally(again);
    });
  };
  again();
  return { table: discovered, stop: () => cancel() };
}

/** The descriptors of the controllers this package holds, in kube-controller-manager's names. */
export function builtinControllers(opts: BuiltinControllersOptions = {}): ControllerDescriptor[] {
  return [
    {
      name: 'namespace',
      requires: [{ group: '', resource: 'namespaces' }],
      async start(ctx) {
        const t = await namespaceTable(ctx, opts.table);
        const controller = startNamespaceController({ client: ctx.client, table: t.table, informers: ctx.informers, onError: ctx.onError });
        return {
          async stop() {
            t.stop();
            await controller.stop();
          },
        };
      },
    },
    {
      name: 'serviceaccount',
      requires: [{ group: '', resource: 'serviceaccounts' }, { group: '', resource: 'namespaces' }],
      start: (ctx) => startServiceAccountController({ client: ctx.client, informers: ctx.informers, onError: ctx.onError }),
    },
    garbageCollectorController,
    ...batchControllers,
    disruptionControllerDescriptor,
    nodeLifecycleControllerDescriptor,
    nodeIpamControllerDescriptor(() => opts.nodeIpam),
    ...volumeProtectionControllers,
    persistentVolumeBinderDescriptor,
    podGCControllerDescriptor,
    deploymentControllerDescriptor,
    replicaSetControllerDescriptor,
    replicationControllerDescriptor,
    endpointControllerDescriptor,
    endpointSliceControllerDescriptor,
    endpointSliceMirroringControllerDescriptor,
    resourceQuotaControllerDescriptor,
    statefulSetControllerDescriptor,
    daemonSetControllerDescriptor,
    csrApprovingController(),
    csrSigningController(),
    csrCleanerController(),
    ...tokenControllers,
    {
      name: 'root-ca-cert-publisher',
      requires: [{ group: '', resource: 'configmaps' }, { group: '', resource: 'namespaces' }],
      start(ctx) {
        const caPem = opts.rootCA?.();
        if (!caPem) return { async stop() {} };
        return startRootCAPublisher(caPem, { client: ctx.client, informers: ctx.informers, onError: ctx.onError });
      },
    },
  ];
}

interface ControllersOptions {
  /** A privileged client (the server passes a LoopbackClient). */
  client: ApiClient;
  /** The served resources, read at the time of each pass (it changes at run time). */
  table: ResourceTable;
  /** Informers shared with other consumers (admission); one is made (and stopped) when absent. */
  informers?: SharedInformerFactory;
  /** Called with errors the controllers recover from (logged by the caller). */
  onError?: (controller: string, err: unknown) => void;
  log?: (line: string) => void;
  /** Run the service account controller (a `default` ServiceAccount in every namespace). */
  serviceAccounts?: boolean;
  /** The cluster CA (PEM file) the root CA publisher puts in every namespace; no publisher without it. */
  rootCAFile?: string;
  /** Create the system priority classes (system-node-critical, system-cluster-critical) when missing. */
  systemPriorityClasses?: boolean;
  /** The node IPAM settings; no node CIDRs are allocated when absent. */
  nodeIpam?: NodeIpamConfig;
  /** More descriptors beside the built-in ones. */
  descriptors?: readonly ControllerDescriptor[];
  /** `--controllers` (default `*`). */
  controllers?: readonly string[];
  options?: Partial<ControllerOptions>;
  /** The server's feature gates. */
  features?: FeatureGate;
  clock?: Clock;
  /** Leader election on the Lease; off unless given (one server alone needs none). */
  leaderElection?: ManagerLeaderElection | false;
}

export interface RunningControllers extends RunningController {
  manager: ControllerManager;
  idle(): boolean;
}

/**
 * Starts the server's controllers: the API server's own (definitions of custom resources,
 * system priority classes) at once, and the controller manager's as `--controllers` selects
 * them (when this server holds the Lease, with leader election).
 */
export function startControllers(opts: ControllersOptions): RunningControllers {
  const builtin = builtinControllers({
    table: opts.table,
    rootCA: () => (opts.rootCAFile ? readFileSync(opts.rootCAFile, 'utf8') : undefined),
    ...(opts.nodeIpam ? { nodeIpam: opts.nodeIpam } : {}),
  }).filter((d) => d.name !== 'serviceaccount' || opts.serviceAccounts === true); // the server asks for it; tests may not
  // Refuses unknown `--controllers` names before anything starts.
  const manager = new ControllerManager({
    client: opts.client,
    descriptors: [...builtin, ...(opts.descriptors ?? [])],
    controllers: opts.controllers ?? ['*'],
    ...(opts.options ? { options: opts.options } : {}),
    ...(opts.features ? { features: opts.features } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.informers ? { informers: opts.informers } : {}),
    discover: async () => discoverFromTable(opts.table),
    onResourcesChanged: (listener) => opts.table.onChange(listener),
    leaderElection: opts.leaderElection ?? false,
    ...(opts.log ? { log: opts.log } : {}),
    ...(opts.onError ? { onError: opts.onError } : {}),
  });
  const crdInformers =
    opts.informers ?? new SharedInformerFactory(opts.client, { resyncMs: 5 * 60_000, dropManagedFields: true, onError: (err) => opts.onError?.('informer', err) });
  let crdControllers: (RunningController & { idle(): boolean }) | undefined;
  // The definitions' controllers belong to the API server: they run whenever definitions are served.
  const crds = crdResource();
  if (opts.table.lookup({ group: crds.group, version: crds.version }, crds.resource)) {
    crdControllers = startCRDControllers({ client: opts.client, informers: crdInformers, onError: opts.onError });
  }
  crdInformers.start();
  // The system priority classes, once per start (they are kept, not reconciled).
  let bootstrapped = !opts.systemPriorityClasses;
  const bootstrap = opts.systemPriorityClasses
    ? ensureSystemPriorityClasses(opts.client)
        .catch((err: unknown) => opts.onError?.('priority-classes', err))
        .finally(() => (bootstrapped = true))
    : Promise.resolve();
  manager.start();
  return {
    manager,
    idle: () => bootstrapped && (crdControllers?.idle() ?? true) && manager.idle(),
    async stop() {
      await bootstrap;
      await manager.stop();
      await crdControllers?.stop();
      if (!opts.informers) await crdInformers.stop();
    },
  };
}
