// Classification: which FlowSchema a request matches (subjects, then resource or
// non-resource rules), and the flow distinguisher within it. Pure functions of the request
// and the schema, with Kubernetes 1.27's matching rules.
import { ALL, type FlowSchema, type NonResourcePolicyRule, type PolicyRulesWithSubjects, type RequestAttributes, type RequestDigest, type ResourcePolicyRule, type Subject } from './types.js';
import type { UserInfo } from '../apimachinery/types.js';

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** The list holds the value, or is exactly the wildcard alone (as the API defines it). */
function listMatches(list: readonly string[] | undefined, value: string): boolean {
  if (!list) return false;
  if (list.length === 1 && list[0] === ALL) return true;
  return list.includes(value);
}

export function subjectMatches(user: UserInfo, subject: Subject): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.user !== undefined && (subject.user.name === ALL || subject.user.name === user.username);
    case 'Group': {
      const name = subject.group?.name;
      if (name === undefined) return false;
      return name === ALL || user.groups.includes(name);
    }
    case 'ServiceAccount': {
      const sa = subject.serviceAccount;
      if (!sa || !user.username.startsWith(SERVICE_ACCOUNT_PREFIX)) return false;
      const rest = user.username.slice(SERVICE_ACCOUNT_PREFIX.length);
      if (sa.name === ALL) return rest.startsWith(`${sa.namespace}:`);
      return rest === `${sa.namespace}:${sa.name}`;
    }
    default:
      return false;
  }
}

export function resourceRuleMatches(info: RequestAttributes, rule: ResourcePolicyRule): boolean {
  if (!listMatches(rule.verbs, info.verb)) return false;
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  if (!listMatches(rule.resources, resource)) return false;
  if (!listMatches(rule.apiGroups, info.apiGroup)) return false;
  if (info.namespace === '') return rule.clusterScope === true;
  return listMatches(rule.namespaces, info.namespace);
}

/**
 * A non-resource URL rule matches `*`, the exact path, or any path under it: `/healthz`
 * also covers `/healthz/etcd`, and `/apis/*` covers everything below `/apis/` (1.27's rule).
 */
export function nonResourceURLMatches(ruleURLs: readonly string[], path: string): boolean {
  for (const url of ruleURLs) {
    if (url === ALL || url === path) return true;
    let prefix = url.endsWith('*') ? url.slice(0, -1) : url;
    if (!prefix.endsWith('/')) prefix += '/';
    if (path.startsWith(prefix)) return true;
  }
  return false;
}

export function nonResourceRuleMatches(info: RequestAttributes, rule: NonResourcePolicyRule): boolean {
  return listMatches(rule.verbs, info.verb) && nonResourceURLMatches(rule.nonResourceURLs, info.path);
}

export function policyRuleMatches(digest: RequestDigest, rule: PolicyRulesWithSubjects): boolean {
  if (!rule.subjects.some((s) => subjectMatches(digest.user, s))) return false;
  if (digest.info.isResourceRequest) return (rule.resourceRules ?? []).some((r) => resourceRuleMatches(digest.info, r));
  return (rule.nonResourceRules ?? []).some((r) => nonResourceRuleMatches(digest.info, r));
}

export function flowSchemaMatches(digest: RequestDigest, fs: FlowSchema): boolean {
  return (fs.spec.rules ?? []).some((r) => policyRuleMatches(digest, r));
}

/** Matching order: lower matchingPrecedence first, then the name. */
export function compareFlowSchemas(a: FlowSchema, b: FlowSchema): number {
  return a.spec.matchingPrecedence - b.spec.matchingPrecedence || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** The first schema (of a list sorted by `compareFlowSchemas`) the request matches. */
export function classify(digest: RequestDigest, sorted: readonly FlowSchema[]): FlowSchema | undefined {
  return sorted.find((fs) => flowSchemaMatches(digest, fs));
}

/** ByUser: the user's name; ByNamespace: the request's namespace; none: one flow for the schema. */
export function flowDistinguisher(digest: RequestDigest, fs: FlowSchema): string {
  switch (fs.spec.distinguisherMethod?.type) {
    case 'ByUser':
      return digest.user.username;
    case 'ByNamespace':
      return digest.info.namespace;
    default:
      return '';
  }
}
