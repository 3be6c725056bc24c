// Which requests a webhook's rules cover: operation, group, version, resource and
// subresource (with `*`, `*/*`, `pods/*`, `*/status`), and scope. Pure.
// An entry is split at its first slash and `*` stands for either half, the missing half being
// the empty subresource. So `*` is every resource without subresources, and `pods/*` covers
// pods itself as well as its subresources: kube-apiserver matches it so (its API reference
// says only "all subresources of pods"), and webhooks written for it expect pod creates.
import type { GroupVersionResource } from '../../apimachinery/types.js';
import type { AdmissionOperation } from '../types.js';
import type { RuleWithOperations } from './config.js';

/** The parts of a request the rules look at. */
export interface RuleTarget {
  operation: AdmissionOperation;
  resource: GroupVersionResource;
  subresource: string;
  /** The request's namespace: '' for cluster-scoped resources (a Namespace object is cluster-scoped). */
  namespace: string;
}

const exactOrWildcard = (items: string[], requested: string): boolean => items.some((i) => i === '*' || i === requested);

/** The Namespace kind lives in the core group; its objects are cluster-scoped. */
export function isNamespaceResource(r: GroupVersionResource): boolean {
  return r.group === '' && r.resource === 'namespaces';
}

function scopeMatches(scope: string, t: RuleTarget): boolean {
  switch (scope) {
    case '*':
    case '':
      return true;
    case 'Namespaced':
      return !isNamespaceResource(t.resource) && t.namespace !== '';
    case 'Cluster':
      return isNamespaceResource(t.resource) || t.namespace === '';
    default:
      return false;
  }
}

function resourceMatches(resources: string[], t: RuleTarget): boolean {
  return resources.some((entry) => {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? '' : entry.slice(slash + 1);
    return (res === '*' || res === t.resource.resource) && (sub === '*' || sub === t.subresource);
  });
}

export function ruleMatches(rule: RuleWithOperations, t: RuleTarget): boolean {
  return (
    scopeMatches(rule.scope, t) &&
    exactOrWildcard(rule.operations, t.operation) &&
    exactOrWildcard(rule.apiGroups, t.resource.group) &&
    exactOrWildcard(rule.apiVersions, t.resource.version) &&
    resourceMatches(rule.resources, t)
  );
}
