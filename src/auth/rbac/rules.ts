// RBAC rule semantics as pure functions: whether a rule grants a request, whether a
// binding's subject is a user, and whether one set of rules covers another (escalation).
import type { UserInfo } from '../../apimachinery/types.js';
import type { AuthorizationAttributes } from '../types.js';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

const ALL = '*';

function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === ALL || v === verb);
}

function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === ALL || g === group);
}

// Rule resources: `pods`, `pods/log`, `*`, and `*` followed by `/<subresource>` (that
// subresource of any resource).
export function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const requested = subresource ? `${resource}/${subresource}` : resource;
  for (const r of rule.resources ?? []) {
    if (r === ALL || r === requested) return true;
    if (subresource && r === `*/${subresource}`) return true;
  }
  return false;
}

function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** Exact paths, `*`, and `prefix/*` (which matches anything under the prefix). */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === ALL || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

export function ruleAllows(attrs: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (attrs.isResourceRequest) {
    return (
      verbMatches(rule, attrs.verb) &&
      apiGroupMatches(rule, attrs.apiGroup) &&
      resourceMatches(rule, attrs.resource, attrs.subresource) &&
      resourceNameMatches(rule, attrs.name)
    );
  }
  return verbMatches(rule, attrs.verb) && nonResourceURLMatches(rule, attrs.path);
}

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** Whether a subject of a binding (in `bindingNamespace` for RoleBindings) names the user. */
export function subjectMatches(subject: Subject, user: UserInfo, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.name === user.username;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      return ns !== '' && user.username === `${SERVICE_ACCOUNT_PREFIX}${ns}:${subject.name}`;
    }
    default:
      return false;
  }
}

/** `Group "x"`, `User "x"`, `ServiceAccount "x/ns"`, as RBAC's allow reasons name subjects. */
export function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') return `ServiceAccount ${JSON.stringify(`${subject.name}/${subject.namespace || bindingNamespace}`)}`;
  return `${subject.kind} ${JSON.stringify(subject.name)}`;
}

// ---------------------------------------------------------------------------------------
// Coverage, for escalation checks: does the owner hold every permission a rule grants?

function has(list: string[] | undefined, value: string): boolean {
  return (list ?? []).some((v) => v === ALL || v === value);
}

/** Whether one owner rule covers a single-valued servant rule. */
function ruleCovers(owner: PolicyRule, servant: PolicyRule): boolean {
  if (!servant.verbs.every((v) => has(owner.verbs, v))) return false;
  if (servant.nonResourceURLs && servant.nonResourceURLs.length > 0) {
    return servant.nonResourceURLs.every((u) =>
      (owner.nonResourceURLs ?? []).some((o) => o === ALL || o === u || (o.endsWith('*') && u.startsWith(o.slice(0, -1)))),
    );
  }
  if (!(servant.apiGroups ?? []).every((g) => has(owner.apiGroups, g))) return false;
  const resourcesCovered = (servant.resources ?? []).every((r) => {
    if (has(owner.resources, r)) return true;
    const slash = r.indexOf('/');
    return slash > 0 && (owner.resources ?? []).includes(`*${r.slice(slash)}`);
  });
  if (!resourcesCovered) return false;
  const ownerNames = owner.resourceNames ?? [];
  if (ownerNames.length === 0) return true;
  const servantNames = servant.resourceNames ?? [];
  return servantNames.length > 0 && servantNames.every((n) => ownerNames.includes(n));
}

/** Splits a rule into rules of one verb, group, resource (and the names kept together). */
function atomize(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const verb of rule.verbs) {
    if (rule.nonResourceURLs && rule.nonResourceURLs.length > 0) {
      for (const u of rule.nonResourceURLs) out.push({ verbs: [verb], nonResourceURLs: [u] });
    }
    for (const g of rule.apiGroups ?? []) {
      for (const r of rule.resources ?? []) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0) out.push({ verbs: [verb], apiGroups: [g], resources: [r] });
        else for (const n of names) out.push({ verbs: [verb], apiGroups: [g], resources: [r], resourceNames: [n] });
      }
    }
  }
  return out;
}

/** The servant rules no owner rule covers (empty when the owner covers them all). */
export function uncoveredRules(owner: PolicyRule[], servant: PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of servant) for (const atom of atomize(rule)) if (!owner.some((o) => ruleCovers(o, atom))) missing.push(atom);
  return missing;
}

/** `{APIGroups:["apps"], Resources:["deployments"], Verbs:["create"]}`, as RBAC messages print rules. */
export function compactRuleString(rule: PolicyRule): string {
  const q = (l: string[]) => `[${l.map((s) => JSON.stringify(s)).join(' ')}]`;
  const parts: string[] = [];
  if (rule.apiGroups && rule.apiGroups.length > 0) parts.push(`APIGroups:${q(rule.apiGroups)}`);
  if (rule.resources && rule.resources.length > 0) parts.push(`Resources:${q(rule.resources)}`);
  if (rule.nonResourceURLs && rule.nonResourceURLs.length > 0) parts.push(`NonResourceURLs:${q(rule.nonResourceURLs)}`);
  if (rule.resourceNames && rule.resourceNames.length > 0) parts.push(`ResourceNames:${q(rule.resourceNames)}`);
  parts.push(`Verbs:${q(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}
