// The plugins that judge pods and nodes: AlwaysPullImages, SecurityContextDeny,
// LimitPodHardAntiAffinityTopology, PodNodeSelector, PodTolerationRestriction,
// ExtendedResourceToleration, NodeRestriction, OwnerReferencesPermissionEnforcement.
import type { AdmissionPluginFactory } from './types.js';
import type { AdmissionDeps } from './deps.js';

export function podPluginFactories(_deps: AdmissionDeps): Record<string, AdmissionPluginFactory> {
  return {};
}
