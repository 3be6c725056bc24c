// Whether a policy's matchConstraints (or a binding's matchResources) cover a request, and as
// which resource and kind: namespace and object selectors, resource rules with resource names,
// exclude rules first, and under `matchPolicy: Equivalent` the other served versions of the
// resource. Selector errors count only when the rules match, as Kubernetes' matcher has it.
import { internalError, isApiError, type ApiError } from '../../apimachinery/errors.js';
import { labelSelectorAsSelector, type LabelSelectorObject } from '../../apimachinery/labels.js';
import type { GroupVersionKind, GroupVersionResource } from '../../apimachinery/types.js';
import type { AdmissionAttributes } from '../types.js';
import { requestNamespace, type EquivalentResource } from '../webhook/matcher.js';
import { isNamespaceResource, ruleMatches, type RuleTarget } from '../webhook/rules.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

export interface MatchDeps {
  /** Labels of a namespace; throws ApiError 404 when it does not exist. */
  namespaceLabels(name: string): Promise<Record<string, string>>;
  /** Every served version of a resource (the request's own included). */
  equivalents?(resource: GroupVersionResource, subresource: string): EquivalentResource[];
}

export interface MatchOutcome {
  matches: boolean;
  /** The resource and kind the request is evaluated as (another version under Equivalent). */
  resource?: GroupVersionResource;
  kind?: GroupVersionKind;
  /** A configuration error of a matching policy or binding (a bad selector, a missing namespace). */
  error?: ApiError;
}

interface NamedRule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  scope: string;
  resourceNames: string[];
}

function rulesOf(v: unknown): NamedRule[] {
  return (Array.isArray(v) ? v : []).filter(isObject).map((r) => ({
    operations: strings(r.operations),
    apiGroups: strings(r.apiGroups),
    apiVersions: strings(r.apiVersions),
    resources: strings(r.resources),
    scope: typeof r.scope === 'string' && r.scope !== '' ? r.scope : '*',
    resourceNames: strings(r.resourceNames),
  }));
}

function selectorOf(v: unknown): { matches(labels: Record<string, string>): boolean; empty: boolean } | ApiError {
  try {
    return labelSelectorAsSelector((isObject(v) ? v : {}) as LabelSelectorObject);
  } catch (err) {
    return internalError(isApiError(err) ? err.message : err);
  }
}

function labelsOf(o: { metadata?: { labels?: unknown } } | undefined): Record<string, string> | undefined {
  if (!o) return undefined;
  const l = o.metadata?.labels;
  return isObject(l) ? (l as Record<string, string>) : {};
}

async function namespaceMatches(m: Json, attrs: AdmissionAttributes, deps: MatchDeps): Promise<{ matches: boolean; error?: ApiError }> {
  const namespace = requestNamespace(attrs);
  if (namespace === '' && !isNamespaceResource(attrs.resource)) return { matches: true };
  const sel = selectorOf(m.namespaceSelector);
  if (isApiError(sel)) return { matches: false, error: sel };
  if (sel.empty) return { matches: true };
  if (isNamespaceResource(attrs.resource) && attrs.subresource === '' && (attrs.operation === 'CREATE' || attrs.operation === 'UPDATE')) {
    return { matches: sel.matches(labelsOf(attrs.object) ?? {}) };
  }
  try {
    return { matches: sel.matches(await deps.namespaceLabels(namespace)) };
  } catch (err) {
    return { matches: false, error: isApiError(err) ? err : internalError(err) };
  }
}

function objectMatches(m: Json, attrs: AdmissionAttributes): { matches: boolean; error?: ApiError } {
  const sel = selectorOf(m.objectSelector);
  if (isApiError(sel)) return { matches: false, error: sel };
  if (sel.empty) return { matches: true };
  const now = labelsOf(attrs.object);
  const old = labelsOf(attrs.oldObject);
  return { matches: (now !== undefined && sel.matches(now)) || (old !== undefined && sel.matches(old)) };
}

function ruleCovers(rule: NamedRule, target: RuleTarget, name: string): boolean {
  if (!ruleMatches(rule, target)) return false;
  return rule.resourceNames.length === 0 || rule.resourceNames.includes(name);
}

/** The first rule covering the request, directly or (Equivalent) as another served version. */
function matchRules(rules: NamedRule[], equivalent: boolean, attrs: AdmissionAttributes, deps: MatchDeps): { resource: GroupVersionResource; kind: GroupVersionKind } | undefined {
  const target: RuleTarget = { operation: attrs.operation, resource: attrs.resource, subresource: attrs.subresource, namespace: requestNamespace(attrs) };
  if (rules.some((r) => ruleCovers(r, target, attrs.name))) return { resource: attrs.resource, kind: attrs.kind };
  if (!equivalent || !deps.equivalents) return undefined;
  const others = deps.equivalents(attrs.resource, attrs.subresource).filter(
    (e) => !(e.resource.group === attrs.resource.group && e.resource.version === attrs.resource.version && e.resource.resource === attrs.resource.resource),
  );
  for (const rule of rules) {
    for (const e of others) if (ruleCovers(rule, { ...target, resource: e.resource }, attrs.name)) return { resource: e.resource, kind: e.kind };
  }
  return undefined;
}

/**
 * Whether `matchResources` covers the request. With no resource rules (a binding's
 * matchResources may have none) every resource matches.
 */
export async function matchResources(m: Json | undefined, attrs: AdmissionAttributes, deps: MatchDeps): Promise<MatchOutcome> {
  if (!m) return { matches: true, resource: attrs.resource, kind: attrs.kind };
  const ns = await namespaceMatches(m, attrs, deps);
  if (!ns.matches && !ns.error) return { matches: false };
  const obj = objectMatches(m, attrs);
  if (!obj.matches && !obj.error) return { matches: false };
  const equivalent = m.matchPolicy !== 'Exact';
  if (matchRules(rulesOf(m.excludeResourceRules), equivalent, attrs, deps)) return { matches: false };
  const rules = rulesOf(m.resourceRules);
  const hit = rules.length === 0 ? { resource: attrs.resource, kind: attrs.kind } : matchRules(rules, equivalent, attrs, deps);
  if (!hit) return { matches: false };
  if (ns.error) return { matches: false, error: ns.error };
  if (obj.error) return { matches: false, error: obj.error };
  return { matches: true, ...hit };
}
