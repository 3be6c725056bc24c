// Resource definitions of the review APIs: virtual, create-only, cluster-scoped except
// LocalSubjectAccessReview. Release 1.27's layout: TokenReview in authentication v1 only
// (v1beta1's was removed in 1.22); SelfSubjectReview in v1beta1 and v1alpha1 only, both off
// unless --runtime-config serves them and the APISelfSubjectReview gate is on (v1 is 1.28's).
import { group } from '../../naming/index.js';
import type { ResourceDefinition } from '../../rest/index.js';

function def(base: 'authentication' | 'authorization', version: string, kind: string, namespaced: boolean, preferred: boolean): ResourceDefinition {
  const singular = kind.toLowerCase();
  return {
    group: group(base),
    version,
    resource: `${singular}s`,
    kind,
    singularName: singular,
    namespaced,
    shortNames: [],
    categories: [],
    verbs: ['create'],
    subresources: [],
    preferred,
  };
}

export function reviewDefinitions(): Record<string, ResourceDefinition> {
  return {
    tokenReviewV1: def('authentication', 'v1', 'TokenReview', false, true),
    selfSubjectReviewV1beta1: def('authentication', 'v1beta1', 'SelfSubjectReview', false, false),
    selfSubjectReviewV1alpha1: def('authentication', 'v1alpha1', 'SelfSubjectReview', false, false),
    selfSubjectAccessReview: def('authorization', 'v1', 'SelfSubjectAccessReview', false, true),
    subjectAccessReview: def('authorization', 'v1', 'SubjectAccessReview', false, true),
    localSubjectAccessReview: def('authorization', 'v1', 'LocalSubjectAccessReview', true, true),
    selfSubjectRulesReview: def('authorization', 'v1', 'SelfSubjectRulesReview', false, true),
  };
}
