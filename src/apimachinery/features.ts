// Feature gates (`--feature-gates`): named switches with a maturity stage and a default, as
// kube-apiserver 1.27 knows them. One FeatureGate per server, passed to whatever a gate
// changes, so several servers in one process may differ.

export type FeatureStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

/**
 * What this server does with a gate set against its default:
 * - `acts`: it behaves as kube-apiserver does with that value;
 * - `elsewhere`: kube-apiserver itself does not act on it (it switches something in the kubelet,
 *   the scheduler, kube-proxy, or a controller or flag this server does not have), so it is
 *   accepted and changes nothing, as there;
 * - `refused`: the server implements the default only, and refuses to start with the other
 *   value rather than ignore it.
 */
export type FeatureDisposition = 'acts' | 'elsewhere' | 'refused';

export interface FeatureSpec {
  default: boolean;
  stage: FeatureStage;
  /** GA (or deprecated) gates that may no longer be set to anything but their default. */
  lockToDefault?: boolean;
  /** `acts` when unset. */
  orch?: FeatureDisposition;
}

/** A `--feature-gates` value the server cannot start with. */
export class FeatureGateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeatureGateError';
  }
}

/** The switches `AllAlpha=` and `AllBeta=` set every gate of that stage not named on its own. */
const ALL_ALPHA = 'AllAlpha';
const ALL_BETA = 'AllBeta';

/**
 * Parses the flag's text, `Name=bool,Name=bool`, into ordered pairs. The value is required and
 * read as Go's ParseBool reads it.
 */
export function parseFeatureGates(text: string): [string, boolean][] {
  const out: [string, boolean][] = [];
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    if (eq < 0) throw new FeatureGateError(`missing bool value for ${item}`);
    const name = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value)) out.push([name, true]);
    else if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(value)) out.push([name, false]);
    else throw new FeatureGateError(`invalid value of ${name}=${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
  }
  return out;
}

interface GateState {
  explicit: Map<string, boolean>;
  allAlpha: boolean | undefined;
  allBeta: boolean | undefined;
}

export class FeatureGate {
  private state: GateState = { explicit: new Map(), allAlpha: undefined, allBeta: undefined };

  constructor(private readonly specs: Readonly<Record<string, FeatureSpec>>) {}

  private spec(name: string): FeatureSpec | undefined {
    return Object.hasOwn(this.specs, name) ? this.specs[name] : undefined;
  }

  /**
   * Applies `--feature-gates` text on top of what is set. Throws FeatureGateError, changing
   * nothing, on an unknown gate, a locked one set against its default, or a gate this server
   * implements at its default only turned the other way (named, or through AllAlpha/AllBeta);
   * returns the warnings kube-apiserver prints for GA and deprecated gates.
   */
  set(text: string): string[] {
    const pairs = parseFeatureGates(text);
    const warnings: string[] = [];
    for (const [name, value] of pairs) {
      if (name === ALL_ALPHA || name === ALL_BETA) continue;
      const spec = this.spec(name);
      if (!spec) throw new FeatureGateError(`unrecognized feature gate: ${name}`);
      if (spec.lockToDefault && value !== spec.default) {
        throw new FeatureGateError(`cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`);
      }
      if (spec.stage === 'DEPRECATED') warnings.push(`Setting deprecated feature gate ${name}=${value}. It will be removed in a future release.`);
      if (spec.stage === 'GA') warnings.push(`Setting GA feature gate ${name}=${value}. It will be removed in a future release.`);
    }
    const next: GateState = { explicit: new Map(this.state.explicit), allAlpha: this.state.allAlpha, allBeta: this.state.allBeta };
    for (const [name, value] of pairs) {
      if (name === ALL_ALPHA) next.allAlpha = value;
      else if (name === ALL_BETA) next.allBeta = value;
      else next.explicit.set(name, value);
    }
    const refused = Object.keys(this.specs)
      .sort()
      .filter((name) => this.specs[name]!.orch === 'refused' && this.valueIn(next, name) !== this.specs[name]!.default)
      .map((name) => `${name}=${!this.specs[name]!.default}`);
    if (refused.length === 1) {
      const name = refused[0]!.split('=')[0]!;
      throw new FeatureGateError(`feature gate ${refused[0]} is not supported by this server: it implements ${name} only at its default (${this.specs[name]!.default})`);
    }
    if (refused.length > 1) {
      throw new FeatureGateError(`feature gates not supported by this server at these values (it implements them only at their defaults): ${refused.join(', ')}`);
    }
    this.state = next;
    return warnings;
  }

  private valueIn(state: GateState, name: string): boolean {
    const spec = this.specs[name]!;
    const set = state.explicit.get(name);
    if (set !== undefined) return set;
    if (spec.stage === 'ALPHA' && state.allAlpha !== undefined) return state.allAlpha;
    if (spec.stage === 'BETA' && state.allBeta !== undefined) return state.allBeta;
    return spec.default;
  }

  /** Whether the gate is on. Asking for a gate nobody declared is a programming error. */
  enabled(name: string): boolean {
    if (!this.spec(name)) throw new Error(`feature gate ${JSON.stringify(name)} is not known`);
    return this.valueIn(this.state, name);
  }

  /**
   * Every known gate with its stage and state, sorted by name (the `kubernetes_feature_enabled`
   * metric), AllAlpha and AllBeta included as kube-apiserver reports them.
   */
  all(): { name: string; stage: FeatureStage; enabled: boolean }[] {
    return [
      ...Object.keys(this.specs).map((name) => ({ name, stage: this.specs[name]!.stage, enabled: this.enabled(name) })),
      { name: ALL_ALPHA, stage: 'ALPHA' as const, enabled: this.state.allAlpha ?? false },
      { name: ALL_BETA, stage: 'BETA' as const, enabled: this.state.allBeta ?? false },
    ].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}

// Shorthands for the table below.
const ga = (orch: FeatureDisposition): FeatureSpec => ({ default: true, stage: 'GA', lockToDefault: true, orch });
const beta = (on: boolean, orch: FeatureDisposition): FeatureSpec => ({ default: on, stage: 'BETA', orch });
const alpha = (orch: FeatureDisposition, on = false): FeatureSpec => ({ default: on, stage: 'ALPHA', orch });

/**
 * Every gate kube-apiserver 1.27 (v1.27.16) knows: its own (k8s.io/kubernetes/pkg/features),
 * the generic API server's (k8s.io/apiserver/pkg/features), and the logging and metrics gates
 * of k8s.io/component-base it registers. Name, stage, default, lock, and what this server
 * does with the non-default value (`FeatureDisposition`). Gates of controllers count as this
 * server's where it runs the controller (job, cronjob, disruption, ...), as `elsewhere` where
 * it does not.
 */
export const KNOWN_FEATURES: Readonly<Record<string, FeatureSpec>> = {
  // k8s.io/apiserver
  AdmissionWebhookMatchConditions: alpha('refused'), // webhooks' matchConditions are not evaluated
  AdvancedAuditing: ga('acts'),
  AggregatedDiscoveryEndpoint: beta(true, 'acts'),
  APIListChunking: beta(true, 'acts'),
  APIPriorityAndFairness: beta(true, 'acts'),
  // Responses are never compressed: off is what the server does (on, the default, is a gap).
  APIResponseCompression: beta(true, 'acts'),
  // No kube-apiserver identity Lease is published: off is what the server does.
  APIServerIdentity: beta(true, 'acts'),
  APIServerTracing: beta(true, 'elsewhere'), // traces only with --tracing-config-file, which this server has not
  CustomResourceValidationExpressions: beta(true, 'acts'),
  DryRun: ga('acts'),
  EfficientWatchResumption: ga('acts'),
  InPlacePodVerticalScaling: alpha('refused'), // pod resize and its fields
  KMSv2: beta(true, 'elsewhere'), // KMS providers of --encryption-provider-config, which this server has not
  OpenAPIEnums: beta(true, 'refused'), // schemas always carry their enums
  OpenAPIV3: ga('acts'),
  RemainingItemCount: beta(true, 'acts'),
  RemoveSelfLink: ga('acts'),
  ServerSideApply: ga('acts'),
  ServerSideFieldValidation: ga('acts'),
  StorageVersionAPI: alpha('refused'),
  StorageVersionHash: beta(true, 'refused'), // discovery always carries the hashes
  UnauthenticatedHTTP2DOSMitigation: beta(false, 'refused'),
  ValidatingAdmissionPolicy: alpha('acts'),
  WatchBookmark: ga('acts'),
  WatchFromStorageWithoutResourceVersion: beta(false, 'refused'),
  WatchList: alpha('refused'), // sendInitialEvents is refused, as with the gate off

  // k8s.io/component-base: logging and metrics
  ComponentSLIs: beta(true, 'acts'), // no /metrics/slis is served: off is what the server does
  ContextualLogging: alpha('elsewhere'), // Go logging internals
  LoggingAlphaOptions: alpha('elsewhere'), // the logging flags they allow are not this server's
  LoggingBetaOptions: beta(true, 'elsewhere'),

  // k8s.io/kubernetes
  AnyVolumeDataSource: beta(true, 'refused'),
  APISelfSubjectReview: beta(true, 'acts'),
  AppArmor: beta(true, 'refused'), // off, pod validation forbids the profile annotations
  CloudControllerManagerWebhook: alpha('elsewhere'),
  CloudDualStackNodeIPs: alpha('elsewhere'),
  ClusterTrustBundle: alpha('refused'),
  ConsistentHTTPGetHandlers: { default: true, stage: 'GA', orch: 'elsewhere' }, // GA, not locked (kubelet)
  CPUManager: ga('elsewhere'),
  CPUManagerPolicyAlphaOptions: alpha('elsewhere'),
  CPUManagerPolicyBetaOptions: beta(true, 'elsewhere'),
  CPUManagerPolicyOptions: beta(true, 'elsewhere'),
  CronJobTimeZone: ga('acts'), // locked on: the cronjob controller always honours spec.timeZone
  CrossNamespaceVolumeDataSource: alpha('refused'),
  CSIMigrationAzureFile: ga('elsewhere'),
  CSIMigrationGCE: ga('elsewhere'),
  CSIMigrationPortworx: beta(false, 'elsewhere'),
  CSIMigrationRBD: alpha('elsewhere'),
  CSIMigrationvSphere: ga('elsewhere'),
  CSINodeExpandSecret: beta(true, 'refused'),
  CSIStorageCapacity: ga('acts'),
  CSIVolumeHealth: alpha('elsewhere'),
  ContainerCheckpoint: alpha('elsewhere'),
  CustomCPUCFSQuotaPeriod: alpha('elsewhere'),
  DelegateFSGroupToCSIDriver: ga('elsewhere'),
  DevicePlugins: ga('elsewhere'),
  DisableAcceleratorUsageMetrics: ga('elsewhere'),
  DisableCloudProviders: alpha('elsewhere'), // refuses in-tree --cloud-provider values, a flag this server has not
  DisableKubeletCloudCredentialProviders: alpha('elsewhere'),
  DownwardAPIHugePages: ga('acts'),
  DynamicResourceAllocation: alpha('refused'),
  ElasticIndexedJob: beta(true, 'refused'),
  EndpointSliceTerminatingCondition: ga('acts'),
  EventedPLEG: alpha('elsewhere'),
  ExecProbeTimeout: { default: true, stage: 'GA', orch: 'elsewhere' }, // GA, not locked (kubelet)
  ExpandedDNSConfig: beta(true, 'refused'),
  ExperimentalHostUserNamespaceDefaulting: beta(false, 'elsewhere'),
  GracefulNodeShutdown: beta(true, 'elsewhere'),
  GracefulNodeShutdownBasedOnPodPriority: beta(true, 'elsewhere'),
  GRPCContainerProbe: ga('acts'),
  HonorPVReclaimPolicy: alpha('elsewhere'),
  HPAContainerMetrics: beta(true, 'refused'),
  HPAScaleToZero: alpha('refused'),
  InTreePluginAWSUnregister: alpha('elsewhere'),
  InTreePluginAzureDiskUnregister: alpha('elsewhere'),
  InTreePluginAzureFileUnregister: alpha('elsewhere'),
  InTreePluginGCEUnregister: alpha('elsewhere'),
  InTreePluginOpenStackUnregister: alpha('elsewhere'),
  InTreePluginPortworxUnregister: alpha('elsewhere'),
  InTreePluginRBDUnregister: alpha('elsewhere'),
  InTreePluginvSphereUnregister: alpha('elsewhere'),
  IPTablesOwnershipCleanup: beta(true, 'elsewhere'),
  JobMutableNodeSchedulingDirectives: ga('acts'),
  JobPodFailurePolicy: beta(true, 'refused'),
  JobReadyPods: beta(true, 'refused'), // the job controller always counts ready pods
  JobTrackingWithFinalizers: ga('acts'),
  KubeletCredentialProviders: ga('elsewhere'),
  KubeletInUserNamespace: alpha('elsewhere'),
  KubeletPodResources: beta(true, 'elsewhere'),
  KubeletPodResourcesDynamicResources: alpha('elsewhere'),
  KubeletPodResourcesGet: alpha('elsewhere'),
  KubeletPodResourcesGetAllocatable: beta(true, 'elsewhere'),
  KubeletTracing: beta(true, 'elsewhere'),
  LegacyServiceAccountTokenNoAutoGeneration: ga('acts'),
  // Legacy token use is not recorded on Secrets: off is what the server does.
  LegacyServiceAccountTokenTracking: beta(true, 'acts'),
  LocalStorageCapacityIsolationFSQuotaMonitoring: alpha('elsewhere'),
  LogarithmicScaleDown: beta(true, 'elsewhere'), // the replicaset controller, not run here
  MatchLabelKeysInPodTopologySpread: beta(true, 'refused'),
  MaxUnavailableStatefulSet: alpha('refused'),
  MemoryManager: beta(true, 'elsewhere'),
  MemoryQoS: alpha('elsewhere'),
  MinDomainsInPodTopologySpread: beta(true, 'refused'),
  MinimizeIPTablesRestore: beta(true, 'elsewhere'),
  MixedProtocolLBService: ga('acts'),
  MultiCIDRRangeAllocator: alpha('elsewhere'), // the node IPAM controller, not run here
  MultiCIDRServiceAllocator: alpha('refused'),
  NetworkPolicyStatus: alpha('refused'),
  NewVolumeManagerReconstruction: beta(false, 'elsewhere'),
  NodeInclusionPolicyInPodTopologySpread: beta(true, 'refused'),
  NodeLogQuery: alpha('elsewhere'),
  NodeOutOfServiceVolumeDetach: beta(true, 'elsewhere'), // the podgc and attach-detach controllers, not run here
  NodeSwap: alpha('elsewhere'),
  // Eviction reads the gate, but off, kube-apiserver also drops the field from new budgets.
  PDBUnhealthyPodEvictionPolicy: beta(true, 'refused'),
  PodAndContainerStatsFromCRI: alpha('elsewhere'),
  PodDeletionCost: beta(true, 'elsewhere'), // the replicaset controller, not run here
  // Eviction reads the gate, but off, the disruption controller also leaves stale conditions be.
  PodDisruptionConditions: beta(true, 'refused'),
  PodHasNetworkCondition: alpha('elsewhere'),
  PodSchedulingReadiness: beta(true, 'refused'),
  PodSecurity: ga('acts'),
  ProbeTerminationGracePeriod: beta(true, 'refused'),
  ProcMountType: alpha('refused'),
  ProxyTerminatingEndpoints: beta(true, 'elsewhere'),
  QOSReserved: alpha('elsewhere'),
  ReadWriteOncePod: beta(true, 'refused'),
  RecoverVolumeExpansionFailure: alpha('refused'),
  RetroactiveDefaultStorageClass: beta(true, 'refused'),
  RotateKubeletServerCertificate: beta(true, 'elsewhere'),
  SeccompDefault: ga('elsewhere'),
  SecurityContextDeny: alpha('acts'),
  SELinuxMountReadWriteOncePod: beta(false, 'refused'),
  ServiceInternalTrafficPolicy: ga('acts'),
  ServiceIPStaticSubrange: ga('acts'),
  ServiceNodePortStaticSubrange: alpha('refused'),
  SizeMemoryBackedVolumes: beta(true, 'elsewhere'),
  StableLoadBalancerNodeSet: beta(true, 'elsewhere'),
  StatefulSetAutoDeletePVC: beta(true, 'refused'),
  StatefulSetStartOrdinal: beta(true, 'refused'),
  TopologyAwareHints: beta(true, 'refused'),
  TopologyManager: ga('elsewhere'),
  TopologyManagerPolicyAlphaOptions: alpha('elsewhere'),
  TopologyManagerPolicyBetaOptions: beta(false, 'elsewhere'),
  TopologyManagerPolicyOptions: alpha('elsewhere'),
  UserNamespacesStatelessPodsSupport: alpha('refused'),
  VolumeCapacityPriority: alpha('elsewhere'),
  WindowsHostNetwork: alpha('elsewhere', true),
  WindowsHostProcessContainers: ga('elsewhere'),
  WinDSR: alpha('elsewhere'),
  WinOverlay: beta(true, 'elsewhere'),
};

/** A fresh gate set with the 1.27 defaults. */
export function defaultFeatureGate(): FeatureGate {
  return new FeatureGate(KNOWN_FEATURES);
}
