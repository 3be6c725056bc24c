// The plugins that judge pods and nodes: AlwaysPullImages, SecurityContextDeny,
// LimitPodHardAntiAffinityTopology, PodNodeSelector, PodTolerationRestriction,
// ExtendedResourceToleration, NodeRestriction, OwnerReferencesPermissionEnforcement.
import type { AdmissionPluginFactory } from './types.js';
import type { AdmissionDeps } from './deps.js';
import { NodeRestriction } from './node-restriction.js';
import { subjectAccessReviewAccess } from './access.js';
import { OwnerReferencesPermissionEnforcement, resourceTableMapper } from './owner-references.js';
import { parsePodNodeSelectorConfig, PodNodeSelector } from './pod-node-selector.js';
import { alwaysPullImages, extendedResourceToleration, limitPodHardAntiAffinityTopology, securityContextDeny } from './pod-spec-plugins.js';
import { parsePodTolerationRestrictionConfig, PodTolerationRestriction } from './pod-toleration-restriction.js';

export function podPluginFactories(deps: AdmissionDeps): Record<string, AdmissionPluginFactory> {
  return {
    AlwaysPullImages: () => alwaysPullImages,
    SecurityContextDeny: ({ features }) => securityContextDeny(features),
    LimitPodHardAntiAffinityTopology: () => limitPodHardAntiAffinityTopology,
    ExtendedResourceToleration: () => extendedResourceToleration,
    PodNodeSelector: ({ client, config }) => new PodNodeSelector(client, parsePodNodeSelectorConfig(config)),
    PodTolerationRestriction: ({ client, config }) => new PodTolerationRestriction(client, parsePodTolerationRestrictionConfig(config)),
    NodeRestriction: ({ client }) => new NodeRestriction(client),
    OwnerReferencesPermissionEnforcement: ({ client }) =>
      new OwnerReferencesPermissionEnforcement(subjectAccessReviewAccess(client), resourceTableMapper(deps.resources)),
  };
}
