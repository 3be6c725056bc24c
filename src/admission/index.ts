// Builds the admission chain from the flags: which plugins run (defaults, enabled,
// disabled), their configuration file, and the built-in plugins this server implements.
import type { ParsedFlags } from '../apimachinery/flags.js';
import { FlagError } from '../apimachinery/flags.js';
import { alwaysAdmit, alwaysDeny, PluginChain } from './chain.js';
import { readAdmissionConfig, type AdmissionPluginConfigs } from './config-file.js';
import { apiserverClientSigner, authorizedForSigner, CertificateApproval, ClusterTrustBundleAttest, CertificateSigning, certificateSubjectRestriction, subjectAccessReviewAuthorizer, type SignerAuthorizer } from './certificates.js';
import { DefaultIngressClass, DefaultStorageClass, PersistentVolumeClaimResize, PriorityAdmission, RuntimeClassAdmission } from './classes.js';
import { LimitRanger } from './limit-ranger.js';
import { NamespaceLifecycle } from './namespace-lifecycle.js';
import { parsePodSecurityConfig, PodSecurity } from './pod-security/index.js';
import { ResourceQuotaAdmission } from './resource-quota.js';
import { ServiceAccountAdmission } from './service-account.js';
import { webhookPluginFactories } from './webhook/index.js';
import { defaultTolerationSeconds, storageObjectInUseProtection, taintNodesByCondition } from './simple-defaults.js';
import { selectPlugins } from './plugins.js';
import { podPluginFactories } from './pod-plugins.js';
import { policyPluginFactories } from './policy-plugins.js';
import { validatingPolicyFactories } from './validating-policy/index.js';
import type { AdmissionDeps } from './deps.js';
import { defaultFeatureGate } from '../apimachinery/features.js';
import type { AdmissionChain, AdmissionPlugin, AdmissionPluginFactory } from './types.js';

export { admissionFlagDefinitions } from './flags.js';
export { PluginChain } from './chain.js';
export { AdmissionConfigError, parseAdmissionConfig, readAdmissionConfig, type AdmissionPluginConfigs } from './config-file.js';
export { immortalNamespaces, NamespaceLifecycle } from './namespace-lifecycle.js';
export { DEFAULT_ON_PLUGINS, ORDERED_PLUGINS, selectPlugins } from './plugins.js';
export { apiserverClientSigner, authorizedForSigner, subjectAccessReviewAuthorizer, type SignerAuthorizer };
export { SYSTEM_CLUSTER_CRITICAL, SYSTEM_NODE_CRITICAL } from './classes.js';
export { tokenMountPath, tokenVolumePrefix } from './service-account.js';
export type { AdmissionPluginContext, AdmissionPluginFactory } from './types.js';


export interface BuiltAdmissionChain extends AdmissionChain {
  /** Names of the plugins that run, in order. */
  readonly enabled: string[];
  readonly configuration: AdmissionPluginConfigs;
  /** Stops the plugins' informers. */
  stop(): Promise<void>;
}

function builtIn(deps: AdmissionDeps): Record<string, AdmissionPluginFactory> {
  const signers = (): SignerAuthorizer => deps.signerAuthorizer ?? subjectAccessReviewAuthorizer(deps.client);
  return {
    AlwaysAdmit: () => alwaysAdmit,
    AlwaysDeny: () => alwaysDeny,
    NamespaceLifecycle: ({ client, informers }) =>
      new NamespaceLifecycle(client, informers ? { informer: informers.informerFor({ group: '', version: 'v1', resource: 'namespaces' }) } : {}),
    LimitRanger: ({ client }) => new LimitRanger(client),
    ServiceAccount: ({ client }) => new ServiceAccountAdmission(client),
    TaintNodesByCondition: () => taintNodesByCondition,
    PodSecurity: ({ client, config }) => new PodSecurity(client, parsePodSecurityConfig(config)),
    Priority: ({ client }) => new PriorityAdmission(client),
    DefaultTolerationSeconds: () => defaultTolerationSeconds,
    DefaultStorageClass: ({ client }) => new DefaultStorageClass(client),
    StorageObjectInUseProtection: () => storageObjectInUseProtection,
    PersistentVolumeClaimResize: ({ client }) => new PersistentVolumeClaimResize(client),
    RuntimeClass: ({ client }) => new RuntimeClassAdmission(client),
    CertificateApproval: () => new CertificateApproval(signers()),
    CertificateSigning: () => new CertificateSigning(signers()),
    ClusterTrustBundleAttest: () => new ClusterTrustBundleAttest(signers()),
    CertificateSubjectRestriction: () => certificateSubjectRestriction,
    DefaultIngressClass: ({ client }) => new DefaultIngressClass(client),
    ResourceQuota: ({ client }) => new ResourceQuotaAdmission(client),
    ...webhookPluginFactories(deps.resources ? { resources: deps.resources } : {}),
    ...podPluginFactories(deps),
    ...policyPluginFactories(deps),
    ...validatingPolicyFactories(deps),
  };
}

/** A selected plugin without an implementation is refused, never left silently off. */
export function refuseMissingPlugins(selected: readonly string[], factories: Readonly<Record<string, AdmissionPluginFactory>>): void {
  const missing = selected.filter((name) => !Object.hasOwn(factories, name));
  if (missing.length > 0) throw new FlagError(`admission plugins not implemented by this server: ${missing.join(', ')}; disable them with --disable-admission-plugins`);
}

/**
 * Throws FlagError on unknown or contradictory plugin names, on a plugin this server does
 * not implement (never silently off) and on an unreadable configuration file.
 */
export function buildAdmissionChain(flags: ParsedFlags, deps: AdmissionDeps): BuiltAdmissionChain {
  let selected: string[];
  let configuration: AdmissionPluginConfigs = new Map();
  try {
    selected = selectPlugins(flags.list('enable-admission-plugins'), flags.list('disable-admission-plugins'));
    const file = flags.string('admission-control-config-file');
    if (file) configuration = readAdmissionConfig(file);
  } catch (err) {
    if (err instanceof Error) throw new FlagError(err.message);
    throw err;
  }
  const factories = { ...builtIn(deps), ...deps.plugins };
  refuseMissingPlugins(selected, factories);
  const features = deps.features ?? defaultFeatureGate();
  const plugins: (AdmissionPlugin & { stop?(): Promise<void> })[] = [];
  try {
    for (const name of selected) plugins.push(factories[name]!({ client: deps.client, informers: deps.informers, config: configuration.get(name) ?? {}, features }));
  } catch (err) {
    if (err instanceof Error && !(err instanceof FlagError)) throw new FlagError(err.message);
    throw err;
  }
  const chain = new PluginChain(plugins);
  return {
    enabled: plugins.map((p) => p.name),
    configuration,
    admit: (attrs) => chain.admit(attrs),
    validate: (attrs) => chain.validate(attrs),
    async stop() {
      for (const p of plugins) await p.stop?.();
    },
  };
}
