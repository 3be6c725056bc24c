// The plugins of cluster policy outside pods: ImagePolicyWebhook, EventRateLimit,
// DenyServiceExternalIPs, NamespaceAutoProvision, NamespaceExists, PersistentVolumeLabel.
import type { AdmissionPluginFactory } from './types.js';
import type { AdmissionDeps } from './deps.js';

export function policyPluginFactories(_deps: AdmissionDeps): Record<string, AdmissionPluginFactory> {
  return {};
}
