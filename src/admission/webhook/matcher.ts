// Whether a webhook is called for a request, and as which resource: namespace selector,
// object selector, rules, and under `matchPolicy: Equivalent` the other served versions of
// the same resource. Errors of the selectors count only for webhooks that would be called.
import { internalError, isApiError, type ApiError } from '../../apimachinery/errors.js';
import type { LabelSelector } from '../../apimachinery/labels.js';
import type { GroupVersionKind, GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import { group } from '../../naming/index.js';
import type { ResourceDefinition, ResourceTable } from '../../rest/index.js';
import type { AdmissionAttributes } from '../types.js';
import type { ParsedSelector, Webhook } from './config.js';
import { isNamespaceResource, ruleMatches, type RuleTarget } from './rules.js';

/** The resource and kind a webhook is called with. */
export interface WebhookInvocation {
  webhook: Webhook;
  resource: GroupVersionResource;
  subresource: string;
  kind: GroupVersionKind;
}

/** Another served version of the request's resource, with the kind it serves there. */
export interface EquivalentResource {
  resource: GroupVersionResource;
  kind: GroupVersionKind;
}

interface MatcherDeps {
  /** Labels of a namespace; throws ApiError 404 when it does not exist. */
  namespaceLabels(name: string): Promise<Record<string, string>>;
  /** Every served version of a resource (the request's own included); none without a resource table. */
  equivalents?(resource: GroupVersionResource, subresource: string): EquivalentResource[];
}

/**
 * The namespace a request concerns. A Namespace object is its own namespace once it exists
 * (its updates and deletes), as Kubernetes' request info makes it.
 */
export function requestNamespace(attrs: AdmissionAttributes): string {
  if (isNamespaceResource(attrs.resource) && attrs.namespace === '' && attrs.operation !== 'CREATE') return attrs.name;
  return attrs.namespace;
}

const EXEMPT_KINDS = new Set(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);

/** Writes of the admission configuration kinds never go to webhooks, so a bad webhook cannot lock them. */
export function isExemptAdmissionConfigurationResource(attrs: AdmissionAttributes): boolean {
  return attrs.kind.group === group('admissionregistration') && EXEMPT_KINDS.has(attrs.kind.kind);
}

type Match = { matches: boolean; error?: ApiError };

function selectorOf(p: ParsedSelector): { selector?: LabelSelector; error?: ApiError } {
  return 'error' in p ? { error: p.error } : { selector: p.selector };
}

function labelsMatch(obj: KubeObject | undefined, p: ParsedSelector): boolean {
  if (!obj || 'error' in p) return false;
  const labels = obj.metadata?.labels;
  return p.selector.matches(labels && typeof labels === 'object' ? labels : {});
}

export class WebhookMatcher {
  constructor(private readonly deps: MatcherDeps) {}

  private async matchNamespace(w: Webhook, attrs: AdmissionAttributes): Promise<Match> {
    const namespace = requestNamespace(attrs);
    // Cluster-scoped resources other than namespaces are never exempted by the namespace selector.
    if (namespace === '' && !isNamespaceResource(attrs.resource)) return { matches: true };
    const { selector, error } = selectorOf(w.namespaceSelector);
    if (!selector) return { matches: false, error };
    if (selector.empty) return { matches: true };
    // A namespace being created or updated is judged by its new labels: the cache has not got them.
    if (isNamespaceResource(attrs.resource) && attrs.subresource === '' && (attrs.operation === 'CREATE' || attrs.operation === 'UPDATE')) {
      return { matches: selector.matches(attrs.object?.metadata?.labels ?? {}) };
    }
    try {
      return { matches: selector.matches(await this.deps.namespaceLabels(namespace)) };
    } catch (err) {
      if (isApiError(err) && err.code === 404) return { matches: false, error: err };
      return { matches: false, error: internalError(err) };
    }
  }

  private matchObject(w: Webhook, attrs: AdmissionAttributes): Match {
    const { selector, error } = selectorOf(w.objectSelector);
    if (!selector) return { matches: false, error };
    if (selector.empty) return { matches: true };
    return { matches: labelsMatch(attrs.object, w.objectSelector) || labelsMatch(attrs.oldObject, w.objectSelector) };
  }

  /** The invocation of `w` for this request, or undefined when it does not apply. Throws ApiError. */
  async shouldCall(w: Webhook, attrs: AdmissionAttributes): Promise<WebhookInvocation | undefined> {
    const ns = await this.matchNamespace(w, attrs);
    if (!ns.matches && !ns.error) return undefined;
    const obj = this.matchObject(w, attrs);
    if (!obj.matches && !obj.error) return undefined;

    const target: RuleTarget = { operation: attrs.operation, resource: attrs.resource, subresource: attrs.subresource, namespace: requestNamespace(attrs) };
    let invocation: WebhookInvocation | undefined;
    if (w.rules.some((r) => ruleMatches(r, target))) {
      invocation = { webhook: w, resource: attrs.resource, subresource: attrs.subresource, kind: attrs.kind };
    } else if (w.matchPolicy === 'Equivalent' && this.deps.equivalents) {
      const others = this.deps.equivalents(attrs.resource, attrs.subresource).filter(
        (e) => !(e.resource.group === attrs.resource.group && e.resource.version === attrs.resource.version && e.resource.resource === attrs.resource.resource),
      );
      // Earlier rules win over later ones.
      outer: for (const rule of w.rules) {
        for (const e of others) {
          if (ruleMatches(rule, { ...target, resource: e.resource })) {
            invocation = { webhook: w, resource: e.resource, subresource: attrs.subresource, kind: e.kind };
            break outer;
          }
        }
      }
    }
    if (!invocation) return undefined;
    if (ns.error) throw ns.error;
    if (obj.error) throw obj.error;
    return invocation;
  }
}

function storageKey(d: ResourceDefinition): string {
  return d.storage ? `${d.storage.group}/${d.storage.resource}` : `${d.group}/${d.resource}`;
}

/** Other served versions of a resource are those stored under the same key space. */
export function tableEquivalents(table: ResourceTable): (r: GroupVersionResource, subresource: string) => EquivalentResource[] {
  return (r, subresource) => {
    const def = table.lookup({ group: r.group, version: r.version }, r.resource)?.definition;
    if (!def) return [];
    const key = storageKey(def);
    const out: EquivalentResource[] = [];
    for (const d of table.all().map((s) => s.definition)) {
      if (storageKey(d) !== key) continue;
      const sub = subresource ? table.lookupSubresource(d, d.resource, subresource)?.definition : undefined;
      if (subresource && !sub) continue;
      out.push({
        resource: { group: d.group, version: d.version, resource: d.resource },
        kind: sub ? { group: sub.group ?? d.group, version: sub.version ?? d.version, kind: sub.kind } : { group: d.group, version: d.version, kind: d.kind },
      });
    }
    return out;
  };
}
