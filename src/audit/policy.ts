// The audit policy (`--audit-policy-file`): an audit.<domain>/v1 Policy read from YAML or
// JSON and checked as kube-apiserver checks it, and the rule evaluation that gives each
// request its level. Rules are tried in order; the first that matches decides; no match is
// level None.
import { readFileSync } from 'node:fs';
import { getOwn } from '../apimachinery/own.js';
import { isPlainObject, type UserInfo } from '../apimachinery/types.js';
import { dns1123SubdomainName } from '../apimachinery/names.js';
import type { AuthorizationAttributes } from '../auth/types.js';
import { readYaml } from '../codec/yaml.js';
import { fromKubernetesGroup, group } from '../naming/index.js';
import { LEVELS, STAGES, type AuditLevel, type AuditStage, type GroupResources, type Policy, type PolicyRule, type RequestAuditConfig } from './types.js';

export class AuditPolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuditPolicyError';
  }
}

/** The request facts a rule looks at: the authorizer's attributes, with no user when authentication failed. */
export type PolicyAttributes = Omit<AuthorizationAttributes, 'user'> & { user: UserInfo | undefined };

const POLICY_FIELDS = new Set(['kind', 'apiVersion', 'metadata', 'rules', 'omitStages', 'omitManagedFields']);
const RULE_FIELDS = new Set(['level', 'users', 'userGroups', 'verbs', 'resources', 'namespaces', 'nonResourceURLs', 'omitStages', 'omitManagedFields']);
const GROUP_RESOURCE_FIELDS = new Set(['group', 'resources', 'resourceNames']);

/** The versions a policy file may be written in (1.27 serves only v1). */
export function policyApiVersions(): string[] {
  return [`${group('audit')}/v1`];
}

/** Reads and checks the policy file; throws naming the file (and line, for YAML syntax errors). */
export function loadPolicyFile(path: string, warn?: (msg: string) => void): Policy {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new AuditPolicyError(`loading audit policy file: failed to read file path "${path}": ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    return parsePolicy(text, warn);
  } catch (e) {
    throw new AuditPolicyError(`loading audit policy file: ${e instanceof Error ? e.message : String(e)}: from file ${path}`);
  }
}

/** Parses policy text. Unknown fields are warned about and ignored, as the lenient decoder does. */
export function parsePolicy(text: string, warn?: (msg: string) => void): Policy {
  let doc: unknown;
  try {
    doc = readYaml(text);
  } catch (e) {
    throw new Error(`failed decoding: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!isPlainObject(doc)) throw new Error('failed decoding: the policy is not an object');
  const apiVersion = getOwn(doc, 'apiVersion');
  const kind = getOwn(doc, 'kind');
  if (typeof kind !== 'string' || kind === '') throw new Error(`failed decoding: Object 'Kind' is missing in '${preview(text)}'`);
  if (kind !== 'Policy' || typeof apiVersion !== 'string' || !policyApiVersions().includes(apiVersion)) {
    throw new Error(`unknown group version field ${typeof apiVersion === 'string' ? apiVersion : ''}, Kind=${kind} in policy (expected kind Policy in ${policyApiVersions().join(', ')})`);
  }
  const unknown: string[] = [];
  noteUnknown(doc, POLICY_FIELDS, '', unknown);
  const errs: string[] = [];
  const omitStages = stages(getOwn(doc, 'omitStages'), 'omitStages', errs);
  const omitManagedFields = bool(getOwn(doc, 'omitManagedFields'), 'omitManagedFields', errs) ?? false;
  const rawRules = getOwn(doc, 'rules');
  if (rawRules !== undefined && rawRules !== null && !Array.isArray(rawRules)) throw new Error('failed decoding: rules: expected a list');
  const rules: PolicyRule[] = [];
  (Array.isArray(rawRules) ? rawRules : []).forEach((raw: unknown, i) => {
    const at = `rules[${i}]`;
    if (!isPlainObject(raw)) throw new Error(`failed decoding: ${at}: expected an object`);
    noteUnknown(raw, RULE_FIELDS, `${at}.`, unknown);
    const rule: PolicyRule = {
      level: level(getOwn(raw, 'level'), `${at}.level`, errs),
      users: strings(getOwn(raw, 'users'), `${at}.users`),
      userGroups: strings(getOwn(raw, 'userGroups'), `${at}.userGroups`),
      verbs: strings(getOwn(raw, 'verbs'), `${at}.verbs`),
      resources: groupResources(getOwn(raw, 'resources'), `${at}.resources`, errs, unknown),
      namespaces: strings(getOwn(raw, 'namespaces'), `${at}.namespaces`),
      nonResourceURLs: strings(getOwn(raw, 'nonResourceURLs'), `${at}.nonResourceURLs`),
      omitStages: [],
    };
    const own = stages(getOwn(raw, 'omitStages'), `${at}.omitStages`, errs);
    rule.omitStages = [...new Set([...omitStages, ...own])];
    const omf = bool(getOwn(raw, 'omitManagedFields'), `${at}.omitManagedFields`, errs);
    if (omf !== undefined) rule.omitManagedFields = omf;
    rule.nonResourceURLs.forEach((url, j) => {
      if (url === '*') return;
      const p = `${at}.nonResourceURLs[${j}]`;
      if (!url.startsWith('/')) errs.push(`${p}: Invalid value: ${JSON.stringify(url)}: non-resource URL rules must begin with a '/' character`);
      if (url !== '' && url.slice(0, -1).includes('*')) errs.push(`${p}: Invalid value: ${JSON.stringify(url)}: non-resource URL wildcards '*' must be the final character of the rule`);
    });
    if (rule.nonResourceURLs.length > 0 && (rule.resources.length > 0 || rule.namespaces.length > 0)) {
      errs.push(`${at}.nonResourceURLs: Invalid value: ${JSON.stringify(rule.nonResourceURLs)}: rules cannot apply to both regular resources and non-resource URLs`);
    }
    rules.push(rule);
  });
  if (errs.length === 1) throw new Error(errs[0]);
  if (errs.length > 1) throw new Error(`[${errs.join(', ')}]`);
  if (rules.length === 0) throw new Error('loaded illegal policy with 0 rules');
  if (unknown.length > 0) warn?.(`Audit policy contains errors, falling back to lenient decoding: unknown fields ${unknown.map((f) => JSON.stringify(f)).join(', ')}`);
  return { rules, omitStages, omitManagedFields };
}

function preview(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > 80 ? `${t.slice(0, 80)}...` : t;
}

function noteUnknown(obj: Record<string, unknown>, known: Set<string>, prefix: string, out: string[]): void {
  for (const k of Object.keys(obj)) if (!known.has(k) && out.length < 20) out.push(`${prefix}${k}`);
}

function strings(v: unknown, at: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) throw new Error(`failed decoding: ${at}: expected a list of strings`);
  return v as string[];
}

function bool(v: unknown, at: string, errs: string[]): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') {
    errs.push(`${at}: Invalid value: ${JSON.stringify(String(v))}: expected true or false`);
    return undefined;
  }
  return v;
}

function level(v: unknown, at: string, errs: string[]): AuditLevel {
  if (v === undefined || v === null || v === '') {
    errs.push(`${at}: Required value`);
    return 'None';
  }
  if (typeof v !== 'string' || !(LEVELS as readonly string[]).includes(v)) {
    errs.push(`${at}: Unsupported value: ${JSON.stringify(typeof v === 'string' ? v : String(v))}: supported values: ${LEVELS.map((l) => `"${l}"`).join(', ')}`);
    return 'None';
  }
  return v as AuditLevel;
}

function stages(v: unknown, at: string, errs: string[]): AuditStage[] {
  const list = strings(v, at);
  list.forEach((s, i) => {
    if (!(STAGES as readonly string[]).includes(s)) errs.push(`${at}[${i}]: Invalid value: ${JSON.stringify(s)}: allowed stages are ${STAGES.join(',')}`);
  });
  return list.filter((s): s is AuditStage => (STAGES as readonly string[]).includes(s));
}

function groupResources(v: unknown, at: string, errs: string[], unknown: string[]): GroupResources[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new Error(`failed decoding: ${at}: expected a list`);
  return v.map((raw: unknown, i) => {
    const p = `${at}[${i}]`;
    if (!isPlainObject(raw)) throw new Error(`failed decoding: ${p}: expected an object`);
    noteUnknown(raw, GROUP_RESOURCE_FIELDS, `${p}.`, unknown);
    const g = getOwn(raw, 'group') ?? '';
    if (typeof g !== 'string') throw new Error(`failed decoding: ${p}.group: expected a string`);
    const gr: GroupResources = { group: g, resources: strings(getOwn(raw, 'resources'), `${p}.resources`), resourceNames: strings(getOwn(raw, 'resourceNames'), `${p}.resourceNames`) };
    if (g !== '') {
      const msgs = dns1123SubdomainName(g, false);
      if (msgs.length > 0) errs.push(`${p}.group: Invalid value: ${JSON.stringify(g)}: ${msgs.join(',')}`);
    }
    if (gr.resourceNames.length > 0 && gr.resources.length === 0) {
      errs.push(`${p}.resourceNames: Invalid value: ${JSON.stringify(gr.resourceNames)}: using resourceNames requires at least one resource`);
    }
    return gr;
  });
}

/** The level and options of the first rule that matches; level None (with the policy's options) when none does. */
export function evaluatePolicy(policy: Policy, attrs: PolicyAttributes): RequestAuditConfig {
  for (const rule of policy.rules) {
    if (ruleMatches(rule, attrs)) {
      return { level: rule.level, omitStages: rule.omitStages, omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields };
    }
  }
  return { level: 'None', omitStages: policy.omitStages, omitManagedFields: policy.omitManagedFields };
}

function ruleMatches(r: PolicyRule, a: PolicyAttributes): boolean {
  if (r.users.length > 0 && (!a.user || !r.users.includes(a.user.username))) return false;
  if (r.userGroups.length > 0 && (!a.user || !(a.user.groups ?? []).some((g) => r.userGroups.includes(g)))) return false;
  if (r.verbs.length > 0 && !r.verbs.includes(a.verb)) return false;
  if (r.namespaces.length > 0 || r.resources.length > 0) return resourceMatches(r, a);
  if (r.nonResourceURLs.length > 0) return !a.isResourceRequest && r.nonResourceURLs.some((spec) => pathMatches(a.path, spec));
  return true;
}

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

/**
 * Groups are compared with the served name; a policy written with the upstream Kubernetes
 * group names (`rbac.authorization.k8s.io`) matches the same group in either flavor.
 */
function groupMatches(ruleGroup: string, apiGroup: string): boolean {
  return ruleGroup === apiGroup || fromKubernetesGroup(ruleGroup) === apiGroup;
}

function resourceMatches(r: PolicyRule, a: PolicyAttributes): boolean {
  if (!a.isResourceRequest) return false;
  // Cluster-scoped resources have the namespace "".
  if (r.namespaces.length > 0 && !r.namespaces.includes(a.namespace)) return false;
  if (r.resources.length === 0) return true;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  for (const gr of r.resources) {
    if (!groupMatches(gr.group, a.apiGroup)) continue;
    if (gr.resources.length === 0) return true;
    if (gr.resourceNames.length > 0 && !gr.resourceNames.includes(a.name)) continue;
    for (const res of gr.resources) {
      if (res === combined || res === '*') return true;
      if (a.subresource && res.startsWith('*/') && a.subresource === res.slice(2)) return true;
      if (res.endsWith('/*') && a.resource === res.slice(0, -2)) return true;
    }
  }
  return false;
}
