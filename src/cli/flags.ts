// The flags the server itself owns, named as kube-apiserver names them. The entry point
// merges them with the flags of the auth and admission modules.
import type { FlagDefinition, ParsedFlags } from '../apimachinery/flags.js';
import { defaultFeatureGate, FeatureGate } from '../apimachinery/features.js';
import {
  DISABLED_BY_DEFAULT_CONTROLLERS,
  KNOWN_CONTROLLERS,
  DEFAULT_SIMULATED_CLUSTER_CIDR,
  nodeIpamConfig,
  RANGE_ALLOCATOR,
  validateControllers,
  type ControllerOptions,
  type NodeIpamConfig,
  type ManagerLeaderElection,
} from '../controllers/index.js';
import { serviceFlagDefinitions } from '../registry/services/index.js';
import { kubeletFlagDefinitions } from '../registry/connect/index.js';
import { admissionFlagDefinitions } from '../admission/flags.js';
import { flowControlFlagDefinitions } from '../flowcontrol/index.js';
import { authFlagDefinitions } from '../auth/flags.js';
import { aggregatorFlagDefinitions } from '../aggregator/flags.js';
import { listBackends, STORAGE_BACKEND_NAMES, STORAGE_BACKENDS } from '../storage/backends.js';
import { protobufFlagDefinitions } from '../codec/protobuf/index.js';
import { auditFlagDefinitions } from '../audit/index.js';
import { KWOK_GROUP, KWOK_NODE_ANNOTATION, KWOK_NODE_ANNOTATION_VALUE } from '../naming/index.js';

/** kube-controller-manager's flags, shared by the server (in-process controllers) and orch-controller-manager. */
export const controllerFlagDefinitions: FlagDefinition[] = [
  {
    name: 'controllers',
    type: 'stringList',
    default: ['*'],
    usage:
      "A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'. " +
      `All controllers: ${KNOWN_CONTROLLERS.join(', ')}. Disabled-by-default controllers: ${DISABLED_BY_DEFAULT_CONTROLLERS.join(', ')}.`,
  },
  { name: 'concurrent-gc-syncs', type: 'int', default: 20, usage: 'The number of garbage collector workers that are allowed to sync concurrently.' },
  { name: 'concurrent-job-syncs', type: 'int', default: 5, usage: 'The number of job objects that are allowed to sync concurrently. Larger number = more responsive jobs, but more CPU (and network) load' },
  { name: 'concurrent-cron-job-syncs', type: 'int', default: 5, usage: 'The number of cron job objects that are allowed to sync concurrently. Larger number = more responsive jobs, but more CPU (and network) load' },
  { name: 'concurrent-deployment-syncs', type: 'int', default: 5, usage: 'The number of deployment objects that are allowed to sync concurrently. Larger number = more responsive deployments, but more CPU (and network) load' },
  { name: 'concurrent-replicaset-syncs', type: 'int', default: 5, usage: 'The number of replica sets that are allowed to sync concurrently. Larger number = more responsive replica management, but more CPU (and network) load' },
  { name: 'concurrent-statefulset-syncs', type: 'int', default: 5, usage: 'The number of statefulset objects that are allowed to sync concurrently. Larger number = more responsive statefulsets, but more CPU (and network) load' },
  { name: 'concurrent-daemonset-syncs', type: 'int', default: 2, usage: 'The number of daemonset objects that are allowed to sync concurrently. Larger number = more responsive daemonsets, but more CPU (and network) load' },
  { name: 'concurrent-rc-syncs', type: 'int', default: 5, usage: 'The number of replication controllers that are allowed to sync concurrently. Larger number = more responsive replica management, but more CPU (and network) load' },
  { name: 'concurrent-ttl-after-finished-syncs', type: 'int', default: 5, usage: 'The number of TTL-after-finished controller workers that are allowed to sync concurrently.' },
  { name: 'concurrent-endpoint-syncs', type: 'int', default: 5, usage: 'The number of endpoint syncing operations that will be done concurrently. Larger number = faster endpoint updating, but more CPU (and network) load' },
  { name: 'concurrent-service-endpoint-syncs', type: 'int', default: 5, usage: 'The number of service endpoint syncing operations that will be done concurrently. Larger number = faster endpoint slice updating, but more CPU (and network) load. Defaults to 5.' },
  { name: 'max-endpoints-per-slice', type: 'int', default: 100, usage: 'The maximum number of endpoints that will be added to an EndpointSlice. More endpoints per slice will result in less endpoint slices, but larger resources. Defaults to 100.' },
  { name: 'mirroring-concurrent-service-endpoint-syncs', type: 'int', default: 5, usage: 'The number of service endpoint syncing operations that will be done concurrently by the endpointslice-mirroring-controller. Larger number = faster endpoint slice updating, but more CPU (and network) load. Defaults to 5.' },
  { name: 'mirroring-max-endpoints-per-subset', type: 'int', default: 1000, usage: 'The maximum number of endpoints that will be added to an EndpointSlice by the endpointslice-mirroring-controller. More endpoints per slice will result in less endpoint slices, but larger resources. Defaults to 100.' },
  { name: 'concurrent-resource-quota-syncs', type: 'int', default: 5, usage: 'The number of resource quotas that are allowed to sync concurrently. Larger number = more responsive quota management, but more CPU (and network) load' },
  { name: 'resource-quota-sync-period', type: 'duration', default: 300_000, usage: 'The period for syncing quota usage status in the system' },
  { name: 'node-monitor-grace-period', type: 'duration', default: 40_000, usage: 'Amount of time which we allow running Node to be unresponsive before marking it unhealthy. Must be N times more than kubelet\'s nodeStatusUpdateFrequency.' },
  { name: 'pvclaimbinder-sync-period', type: 'duration', default: 15_000, usage: 'The period for syncing persistent volumes and persistent volume claims' },
  { name: 'node-monitor-period', type: 'duration', default: 5_000, usage: 'The period for syncing NodeStatus in NodeController.' },
  {
    name: 'terminated-pod-gc-threshold',
    type: 'int',
    default: 12500,
    usage: 'Number of terminated pods that can exist before the terminated pod garbage collector starts deleting terminated pods. If <= 0, the terminated pod garbage collector is disabled.',
  },
  {
    name: 'allocate-node-cidrs',
    type: 'boolean',
    usage: `Should CIDRs for Pods be allocated and set on the cloud provider (default false; in an API server with --simulated-nodes, true unless given, with --cluster-cidr ${DEFAULT_SIMULATED_CLUSTER_CIDR} unless given).`,
  },
  { name: 'cluster-cidr', type: 'string', usage: 'CIDR Range for Pods in cluster. Requires --allocate-node-cidrs to be true; two comma-separated CIDRs (one IPv4, one IPv6) for a dual-stack cluster.' },
  { name: 'node-cidr-mask-size', type: 'int', default: 0, usage: 'Mask size for node cidr in cluster. Default is 24 for IPv4 and 64 for IPv6.' },
  { name: 'node-cidr-mask-size-ipv4', type: 'int', default: 0, usage: 'Mask size for IPv4 node cidr in dual-stack cluster. Default is 24.' },
  { name: 'node-cidr-mask-size-ipv6', type: 'int', default: 0, usage: 'Mask size for IPv6 node cidr in dual-stack cluster. Default is 64.' },
  { name: 'cidr-allocator-type', type: 'string', default: RANGE_ALLOCATOR, usage: `Type of CIDR allocator to use (only ${RANGE_ALLOCATOR}).` },
  { name: 'cluster-signing-duration', type: 'duration', default: 365 * 24 * 3_600_000, usage: 'The max length of duration signed certificates will be given. Individual CSRs may request shorter certs by setting spec.expirationSeconds.' },
  { name: 'cluster-signing-cert-file', type: 'string', usage: 'Filename containing a PEM-encoded X509 CA certificate used to issue cluster-scoped certificates (the cluster CA when unset).' },
  { name: 'cluster-signing-key-file', type: 'string', usage: 'Filename containing a PEM-encoded RSA or ECDSA private key used to sign cluster-scoped certificates.' },
  { name: 'leader-elect', type: 'boolean', default: true, usage: 'Start a leader election client and gain leadership before executing the main loop. Enable this when running replicated components for high availability. In the API server it applies with --storage-backend etcd, the only store several servers share.' },
  { name: 'leader-elect-lease-duration', type: 'duration', default: 15_000, usage: 'The duration that non-leader candidates will wait after observing a leadership renewal until attempting to acquire leadership of a led but unrenewed leader slot.' },
  { name: 'leader-elect-renew-deadline', type: 'duration', default: 10_000, usage: 'The interval between attempts by the acting master to renew a leadership slot before it stops leading. This must be less than the lease duration.' },
  { name: 'leader-elect-retry-period', type: 'duration', default: 2_000, usage: 'The duration the clients should wait between attempting acquisition and renewal of a leadership.' },
  { name: 'leader-elect-resource-name', type: 'string', default: 'kube-controller-manager', usage: 'The name of resource object that is used for locking during leader election.' },
  { name: 'leader-elect-resource-namespace', type: 'string', usage: 'The namespace of resource object that is used for locking during leader election (the system namespace when unset).' },
];

/** The in-process scheduler's switch (kube-scheduler runs beside kube-apiserver; here it may run inside it). */
export const schedulerFlagDefinitions: FlagDefinition[] = [
  {
    name: 'scheduler',
    type: 'boolean',
    default: true,
    usage: 'Run the scheduler (kube-scheduler\'s default profile) in this process: pending pods of the default-scheduler are bound to nodes. Off when another scheduler (orch-scheduler) serves the cluster.',
  },
];

export const serverFlagDefinitions: FlagDefinition[] = [
  { name: 'help', type: 'boolean', default: false, usage: 'Print the flags and exit.' },
  { name: 'version', type: 'boolean', default: false, usage: 'Print the version and exit.' },
  { name: 'data-dir', type: 'string', default: './.orch', usage: 'Directory holding the database, the PKI and the admin kubeconfig.' },
  { name: 'storage-backend', type: 'string', default: 'sqlite', usage: `Storage backend: ${listBackends(STORAGE_BACKEND_NAMES.map((n) => STORAGE_BACKENDS[n].describe))}.` },
  { name: 'etcd-servers', type: 'stringList', default: [], usage: 'List of etcd servers to connect with (scheme://ip:port), comma separated; for --storage-backend etcd.' },
  { name: 'etcd-prefix', type: 'string', default: '', usage: 'A prefix put before every key in etcd (the keys themselves begin with /registry), so several clusters can share one etcd.' },
  { name: 'etcd-cafile', type: 'string', usage: 'SSL Certificate Authority file used to secure etcd communication.' },
  { name: 'etcd-certfile', type: 'string', usage: 'SSL certification file used to secure etcd communication.' },
  { name: 'etcd-keyfile', type: 'string', usage: 'SSL key file used to secure etcd communication.' },
  { name: 'bind-address', type: 'string', default: '127.0.0.1', usage: 'The IP address on which to listen for the --secure-port port.' },
  { name: 'secure-port', type: 'int', default: 6443, usage: 'The port on which to serve HTTPS with authentication and authorization (0 picks a free port).' },
  { name: 'tls-cert-file', type: 'string', usage: 'File containing the default x509 certificate for HTTPS (CA cert, if any, concatenated after server cert). Defaults to one generated in the data directory.' },
  { name: 'tls-private-key-file', type: 'string', usage: 'File containing the default x509 private key matching --tls-cert-file.' },
  { name: 'compat', type: 'string', default: 'orch', usage: 'Naming flavor: orch (the product identifiers) or kubernetes (the stock Kubernetes identifiers).' },
  { name: 'runtime-config', type: 'string', default: '', usage: 'A set of key=value pairs that enable or disable built-in APIs: <group>/<version>[=true|false], <group>/<version>/<resource>[=true|false].' },
  { name: 'shutdown-delay-duration', type: 'duration', default: 0, usage: 'Time to delay the termination. During that time /readyz fails while the server keeps serving.' },
  { name: 'livez-grace-period', type: 'duration', default: 0, usage: 'The time from start during which /livez assumes that unfinished post-start hooks will complete successfully.' },
  { name: 'max-requests-inflight', type: 'int', default: 400, usage: 'The maximum number of non-mutating requests in flight at a given time.' },
  { name: 'max-mutating-requests-inflight', type: 'int', default: 200, usage: 'The maximum number of mutating requests in flight at a given time.' },
  { name: 'request-timeout', type: 'duration', default: 60_000, usage: 'The duration a handler must keep a request open before timing it out (watches excepted).' },
  { name: 'min-request-timeout', type: 'int', default: 1800, usage: 'The minimum number of seconds a watch lasts when the client sets no timeoutSeconds (it lasts up to twice that).' },
  { name: 'http2-max-streams-per-connection', type: 'int', default: 1000, usage: "The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means to use golang's default (250)." },
  { name: 'etcd-compaction-interval', type: 'duration', default: 60_000, usage: 'The interval of compaction requests to the store.' },
  {
    name: 'max-object-size-bytes',
    type: 'int',
    default: 1572864,
    usage: "The largest encoded object a write may store (etcd's default request limit, 1.5 MiB); larger writes fail as they do against etcd.",
  },
  {
    name: 'feature-gates',
    type: 'string',
    default: '',
    usage: 'A set of key=value pairs that describe feature gates for alpha/experimental features (AllAlpha=true|false, AllBeta=true|false, <gate>=true|false).',
  },
  { name: 'history-retention', type: 'string', default: '1h,50', usage: 'How long and how many revisions of each object the object history keeps: a duration, a count or both (24h, 100, 24h,100); 0 turns it off.' },
  { name: 'watch-history-window', type: 'duration', default: 300_000, usage: 'How long watch history (and continue tokens) stay usable.' },
  {
    name: 'simulated-nodes',
    type: 'int',
    default: 0,
    usage:
      "Nodes to simulate from the start, as KWOK simulates them (node-000000, ...): Ready, their Leases renewed every 10s, the pods bound to them taken through the kubelet's states by Stages. " +
      `A Node anyone creates with the annotation ${KWOK_NODE_ANNOTATION}=${KWOK_NODE_ANNOTATION_VALUE} is simulated as well.`,
  },
  {
    name: 'simulated-node-config',
    type: 'stringList',
    default: [],
    usage:
      `A YAML file of KWOK documents (${KWOK_GROUP}/v1alpha1 Stage, Logs, ClusterLogs) and at most one v1 Node, the template of the created nodes; repeatable. ` +
      'Stages given for Pod or Node replace the built-in ones of that kind (pod-ready, pod-complete, pod-delete; node-initialize, node-heartbeat-with-lease).',
  },
  {
    name: 'console',
    type: 'boolean',
    default: true,
    usage:
      'Serve the web console at /ui/ and print a login URL for it at start (a short-lived token for the admin identity of the written kubeconfig, in the URL fragment). ' +
      'Without it /ui/ is not served (404).',
  },
  { name: 'console-token-ttl', type: 'duration', default: 900_000, usage: 'How long the console login token printed at start is accepted.' },
  ...serviceFlagDefinitions,
  ...kubeletFlagDefinitions,
  ...controllerFlagDefinitions,
  ...schedulerFlagDefinitions,
];

export interface ControllerManagerFlags {
  controllers: string[];
  options: ControllerOptions;
  leaderElection: ManagerLeaderElection | false;
  /** The node IPAM controller's settings; undefined when `--allocate-node-cidrs` is false. */
  nodeIpam: NodeIpamConfig | undefined;
}

/** The flags of node CIDR allocation; `allocateDefault` stands for `--allocate-node-cidrs` when it is not given. */
export function nodeIpamFromFlags(flags: ParsedFlags, defaults: { allocate?: boolean; clusterCIDR?: string } = {}): NodeIpamConfig | undefined {
  const allocate = flags.has('allocate-node-cidrs') ? flags.boolean('allocate-node-cidrs') === true : (defaults.allocate ?? false);
  const clusterCIDR = flags.string('cluster-cidr') || (allocate && !flags.has('allocate-node-cidrs') ? (defaults.clusterCIDR ?? '') : '');
  const mask = (name: string): number => {
    const v = flags.number(name) ?? 0;
    if (!Number.isInteger(v) || v < 0 || v > 128) throw new Error(`--${name}: must be a prefix length from 1 to 128 (0 for the default), not ${v}`);
    return v;
  };
  try {
    return nodeIpamConfig({
      allocateNodeCIDRs: allocate,
      clusterCIDR,
      nodeCIDRMaskSize: mask('node-cidr-mask-size'),
      nodeCIDRMaskSizeIPv4: mask('node-cidr-mask-size-ipv4'),
      nodeCIDRMaskSizeIPv6: mask('node-cidr-mask-size-ipv6'),
      cidrAllocatorType: flags.string('cidr-allocator-type') ?? RANGE_ALLOCATOR,
    });
  } catch (err) {
    throw new Error(`node CIDR allocation: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function positive(flags: ParsedFlags, name: string, fallback: number): number {
  const v = flags.number(name) ?? fallback;
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name}: must be greater than zero, not ${v}`);
  return v;
}

/** An int32 flag (kube-controller-manager's `Int32Var`). */
function int32(flags: ParsedFlags, name: string, fallback: number): number {
  const v = flags.number(name) ?? fallback;
  if (!Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) throw new Error(`--${name}: value out of range: ${v}`);
  return v;
}

/**
 * A positive integer flag whose option is set only when it differs from the default (the
 * controllers apply the default themselves); `max` as kube's validation caps it.
 */
function unlessDefault<K extends keyof ControllerOptions>(flags: ParsedFlags, name: string, fallback: number, key: K, max?: number): Partial<ControllerOptions> {
  const v = positive(flags, name, fallback);
  if (!Number.isInteger(v)) throw new Error(`--${name}: must be an integer, not ${v}`);
  if (max !== undefined && v > max) throw new Error(`--${name}: must be at most ${max}, not ${v}`);
  return v === fallback ? {} : { [key]: v };
}

/** The `--leader-elect*` flags (kube's component-base names); false with `--leader-elect=false`. */
export function leaderElectionFromFlags(flags: ParsedFlags, defaultName: string): ManagerLeaderElection | false {
  if (flags.boolean('leader-elect') === false) return false;
  const namespace = flags.string('leader-elect-resource-namespace');
  const lease: ManagerLeaderElection = {
    name: flags.string('leader-elect-resource-name') ?? defaultName,
    ...(namespace ? { namespace } : {}),
    leaseDurationMs: positive(flags, 'leader-elect-lease-duration', 15_000),
    renewDeadlineMs: positive(flags, 'leader-elect-renew-deadline', 10_000),
    retryPeriodMs: positive(flags, 'leader-elect-retry-period', 2_000),
  };
  return lease;
}

/** The controller manager's settings from its flags (bad values throw, naming the flag). */
export function controllerManagerFlags(flags: ParsedFlags): ControllerManagerFlags {
  const certFile = flags.string('cluster-signing-cert-file');
  const keyFile = flags.string('cluster-signing-key-file');
  if (!certFile !== !keyFile) throw new Error('--cluster-signing-cert-file and --cluster-signing-key-file must be given together');
  const options: ControllerOptions = {
    concurrentGCSyncs: positive(flags, 'concurrent-gc-syncs', 20),
    concurrentJobSyncs: positive(flags, 'concurrent-job-syncs', 5),
    concurrentCronJobSyncs: positive(flags, 'concurrent-cron-job-syncs', 5),
    concurrentTTLSyncs: positive(flags, 'concurrent-ttl-after-finished-syncs', 5),
    concurrentDeploymentSyncs: positive(flags, 'concurrent-deployment-syncs', 5),
    concurrentReplicaSetSyncs: positive(flags, 'concurrent-replicaset-syncs', 5),
    concurrentRCSyncs: positive(flags, 'concurrent-rc-syncs', 5),
    nodeMonitorGracePeriodMs: positive(flags, 'node-monitor-grace-period', 40_000),
    nodeMonitorPeriodMs: positive(flags, 'node-monitor-period', 5_000),
    terminatedPodGCThreshold: int32(flags, 'terminated-pod-gc-threshold', 12500),
    clusterSigningDurationSeconds: Math.floor(positive(flags, 'cluster-signing-duration', 365 * 24 * 3_600_000) / 1000),
    ...(certFile && keyFile ? { clusterSigningCertFile: certFile, clusterSigningKeyFile: keyFile } : {}),
    ...unlessDefault(flags, 'pvclaimbinder-sync-period', 15_000, 'pvClaimBinderSyncPeriodMs'),
    ...unlessDefault(flags, 'concurrent-endpoint-syncs', 5, 'concurrentEndpointSyncs'),
    ...unlessDefault(flags, 'concurrent-statefulset-syncs', 5, 'concurrentStatefulSetSyncs'),
    ...unlessDefault(flags, 'concurrent-daemonset-syncs', 2, 'concurrentDaemonSetSyncs'),
    ...unlessDefault(flags, 'concurrent-service-endpoint-syncs', 5, 'concurrentServiceEndpointSyncs'),
    ...unlessDefault(flags, 'max-endpoints-per-slice', 100, 'maxEndpointsPerSlice', 1000),
    ...unlessDefault(flags, 'mirroring-concurrent-service-endpoint-syncs', 5, 'mirroringConcurrentServiceEndpointSyncs'),
    ...unlessDefault(flags, 'mirroring-max-endpoints-per-subset', 1000, 'mirroringMaxEndpointsPerSubset', 1000),
    ...unlessDefault(flags, 'concurrent-resource-quota-syncs', 5, 'concurrentResourceQuotaSyncs'),
    ...(positive(flags, 'resource-quota-sync-period', 300_000) === 300_000 ? {} : { resourceQuotaSyncPeriodMs: positive(flags, 'resource-quota-sync-period', 300_000) }),
  };
  const controllers = flags.has('controllers') ? flags.list('controllers') : ['*'];
  const unknown = validateControllers(controllers, [...KNOWN_CONTROLLERS, ...DISABLED_BY_DEFAULT_CONTROLLERS]);
  if (unknown.length > 0) throw new Error(`--controllers: ${unknown.join(', ')}`);
  const leaderElection = leaderElectionFromFlags(flags, 'kube-controller-manager');
  return { controllers, options, leaderElection, nodeIpam: nodeIpamFromFlags(flags) };
}

/** Every flag `orch-apiserver` takes: the server's, authentication's, admission's, audit's, the codec's, priority and fairness' and the aggregator's. */
export const allFlagDefinitions: FlagDefinition[] = [
  ...serverFlagDefinitions,
  ...authFlagDefinitions,
  ...admissionFlagDefinitions,
  ...auditFlagDefinitions,
  ...protobufFlagDefinitions,
  ...flowControlFlagDefinitions,
  ...aggregatorFlagDefinitions,
];

/** The gates from `--feature-gates` (1.27 defaults otherwise); throws naming the flag on a bad value. */
export function featureGateFromFlags(flags: ParsedFlags, log: (line: string) => void): FeatureGate {
  const gate = defaultFeatureGate();
  try {
    for (const warning of gate.set(flags.string('feature-gates') ?? '')) log(warning);
  } catch (err) {
    throw new Error(`--feature-gates: ${err instanceof Error ? err.message : String(err)}`);
  }
  return gate;
}
