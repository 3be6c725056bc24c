// The admission plugin names a 1.27 server knows, in the order they run (the recommended
// order), and the ones enabled when no flag says otherwise.

export const ORDERED_PLUGINS: readonly string[] = [
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceLifecycle',
  'NamespaceExists',
  'SecurityContextDeny',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'TaintNodesByCondition',
  'AlwaysPullImages',
  'ImagePolicyWebhook',
  'PodSecurity',
  'PodNodeSelector',
  'Priority',
  'DefaultTolerationSeconds',
  'PodTolerationRestriction',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'PersistentVolumeLabel',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'DenyServiceExternalIPs',
  // Webhooks, quota and the deny-all plugin come last.
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'AlwaysDeny',
];

export const DEFAULT_ON_PLUGINS: ReadonlySet<string> = new Set([
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'TaintNodesByCondition',
  'PodSecurity',
  'Priority',
  'DefaultTolerationSeconds',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
]);

/**
 * The plugins to run, in run order: the defaults plus `enable`, minus `disable`. Throws
 * (with kube-apiserver's messages) on unknown names and on names in both lists. Pure.
 */
export function selectPlugins(enable: string[], disable: string[]): string[] {
  const known = new Set(ORDERED_PLUGINS);
  for (const name of enable) if (!known.has(name)) throw new Error(`enable-admission-plugins plugin "${name}" is unknown`);
  for (const name of disable) if (!known.has(name)) throw new Error(`disable-admission-plugins plugin "${name}" is unknown`);
  const overlap = enable.filter((n) => disable.includes(n));
  if (overlap.length > 0) throw new Error(`[${overlap.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  const chosen = new Set([...DEFAULT_ON_PLUGINS, ...enable]);
  for (const name of disable) chosen.delete(name);
  return ORDERED_PLUGINS.filter((n) => chosen.has(n));
}
