// The contract between the controller manager and its controllers (kube-controller-manager's
// shape): each controller is a named descriptor that starts over a shared context.
import type { Clock } from '../apimachinery/clock.js';
import type { FeatureGate } from '../apimachinery/features.js';
import type { EventRecorder } from '../client/events.js';
import type { SharedInformerFactory } from '../client/informer-factory.js';
import type { ApiClient } from '../client/types.js';

export interface RunningController {
  stop(): Promise<void>;
  /** True when the controller has nothing queued or in flight (tests and `settled()` wait for it). */
  idle?(): boolean;
}

/** A served resource as discovery reports it: what the garbage collector and cleaners walk. */
export interface DiscoveredResource {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

/** kube-controller-manager's tuning flags that the controllers read. */
export interface ControllerOptions {
  /** `--concurrent-gc-syncs` (20). */
  concurrentGCSyncs: number;
  /** `--concurrent-job-syncs` (5). */
  concurrentJobSyncs: number;
  /** `--concurrent-cron-job-syncs` (5). */
  concurrentCronJobSyncs: number;
  /** `--concurrent-ttl-after-finished-syncs` (5). */
  concurrentTTLSyncs: number;
  /** `--concurrent-deployment-syncs` (5). */
  concurrentDeploymentSyncs: number;
  /** `--concurrent-replicaset-syncs` (5). */
  concurrentReplicaSetSyncs: number;
  /** `--concurrent-rc-syncs` (5). */
  concurrentRCSyncs: number;
  /** `--node-monitor-grace-period` (40 s): how long a silent node stays Ready. */
  nodeMonitorGracePeriodMs: number;
  /** `--node-monitor-period` (5 s): how often the node lifecycle controller checks each node. */
  nodeMonitorPeriodMs: number;
  /** `--cluster-signing-duration` in seconds (1 year). */
  clusterSigningDurationSeconds: number;
  /** `--terminated-pod-gc-threshold` (12500): terminated pods kept before podgc deletes the oldest; 0 keeps all. */
  terminatedPodGCThreshold: number;
  /** `--cluster-signing-cert-file` / `--cluster-signing-key-file` (PEM); the server's CA when unset. */
  clusterSigningCertFile?: string;
  clusterSigningKeyFile?: string;
  /** `--concurrent-endpoint-syncs` (5); absent means the default. */
  concurrentEndpointSyncs?: number;
  /** `--concurrent-service-endpoint-syncs` (5): the endpointslice controller's workers. */
  concurrentServiceEndpointSyncs?: number;
  /** `--max-endpoints-per-slice` (100). */
  maxEndpointsPerSlice?: number;
  /** `--mirroring-concurrent-service-endpoint-syncs` (5). */
  mirroringConcurrentServiceEndpointSyncs?: number;
  /** `--pvclaimbinder-sync-period` (15 s): how often the volume binder looks at every claim and volume again. */
  pvClaimBinderSyncPeriodMs?: number;
  /** `--mirroring-max-endpoints-per-subset` (1000): addresses of one Endpoints subset mirrored. */
  mirroringMaxEndpointsPerSubset?: number;
  /** `--concurrent-resource-quota-syncs` (5). */
  concurrentResourceQuotaSyncs?: number;
  /** `--resource-quota-sync-period` (5 min): how often every quota's usage is recomputed in full. */
  resourceQuotaSyncPeriodMs?: number;
  /** `--concurrent-statefulset-syncs` (5). */
  concurrentStatefulSetSyncs?: number;
  /** `--concurrent-daemonset-syncs` (2). */
  concurrentDaemonSetSyncs?: number;
}

export const DEFAULT_CONTROLLER_OPTIONS: ControllerOptions = {
  concurrentGCSyncs: 20,
  concurrentJobSyncs: 5,
  concurrentCronJobSyncs: 5,
  concurrentTTLSyncs: 5,
  concurrentDeploymentSyncs: 5,
  concurrentReplicaSetSyncs: 5,
  concurrentRCSyncs: 5,
  nodeMonitorGracePeriodMs: 40_000,
  nodeMonitorPeriodMs: 5_000,
  terminatedPodGCThreshold: 12_500,
  clusterSigningDurationSeconds: 365 * 24 * 3600,
};

export interface ControllerContext {
  /** A privileged client: the in-process one in the server, HTTPS from a kubeconfig outside it. */
  client: ApiClient;
  /** Informers shared by every controller. */
  informers: SharedInformerFactory;
  clock: Clock;
  /** A recorder whose Events name `component` as their reporting controller. */
  eventRecorder(component: string): EventRecorder;
  /** The resources served now (it changes at run time: custom resources). */
  discover(): Promise<DiscoveredResource[]>;
  /**
   * Calls `listener` when the served resources change, where the manager can tell (in the
   * server process); returns an unsubscribe function. Out of process, controllers poll.
   */
  onResourcesChanged(listener: () => void): () => void;
  options: ControllerOptions;
  /** The server's `--feature-gates` (1.27's defaults where absent, as out of process). */
  features?: FeatureGate;
  /** Errors the controller recovered from (logged and counted by the manager). */
  onError(err: unknown): void;
  /** A line for the server's log, about the controller itself (why it skips, what it uses). */
  log(line: string): void;
}

export interface ControllerDescriptor {
  /** kube-controller-manager's name (`garbagecollector`, `cronjob`, `csrsigning`, ...). */
  name: string;
  /** Off unless named in `--controllers` (`bootstrapsigner`, `tokencleaner`). */
  disabledByDefault?: boolean;
  /**
   * Resources (served group, any version) the controller works on: where one is not served,
   * the manager skips the controller with a log line, as kube-controller-manager does.
   */
  requires?: { group: string; resource: string }[];
  start(ctx: ControllerContext): RunningController | Promise<RunningController>;
}
