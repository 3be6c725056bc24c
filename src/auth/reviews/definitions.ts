// Resource definitions of the review APIs: virtual, create-only, cluster-scoped except
// LocalSubjectAccessReview. SelfSubjectReview is served as v1alpha1, v1beta1 (as release
// 1.27 has them) and v1 (as later releases serve it), so `auth whoami` works everywhere.
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
    tokenReviewV1beta1: def('authentication', 'v1beta1', 'TokenReview', false, false),
    selfSubjectReviewV1: def('authentication', 'v1', 'SelfSubjectReview', false, true),
    selfSubjectReviewV1beta1: def('authentication', 'v1beta1', 'SelfSubjectReview', false, false),
    selfSubjectReviewV1alpha1: def('authentication', 'v1alpha1', 'SelfSubjectReview', false, false),
    selfSubjectAccessReview: def('authorization', 'v1', 'SelfSubjectAccessReview', false, true),
    subjectAccessReview: def('authorization', 'v1', 'SubjectAccessReview', false, true),
    localSubjectAccessReview: def('authorization', 'v1', 'LocalSubjectAccessReview', true, true),
    selfSubjectRulesReview: def('authorization', 'v1', 'SelfSubjectRulesReview', false, true),
  };
}
