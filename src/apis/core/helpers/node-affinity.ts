// Which nodes a pod may run on by its `nodeSelector` and node affinity (the scheduler's
// NodeAffinity plugin and the DaemonSet controller's eligibility use the same rule).
import type { KubeObject } from '../../../apimachinery/types.js';
import { isPlainObject } from '../../../apimachinery/types.js';

export interface NodeSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  values?: string[];
}

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

export interface PreferredSchedulingTerm {
  weight: number;
  preference: NodeSelectorTerm;
}

const INTEGER = /^[+-]?\d+$/;

function requirementMatches(req: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      // One integer on each side, else no match (kube refuses such terms at validation).
      if (value === undefined || values.length !== 1 || !INTEGER.test(value) || !INTEGER.test(values[0])) return false;
      const have = BigInt(value);
      const want = BigInt(values[0]);
      return req.operator === 'Gt' ? have > want : have < want;
    }
    default:
      return false;
  }
}

/**
 * A term matches when all its requirements do; a term with none matches nothing. Fields
 * support `metadata.name` only, as in kube.
 */
export function nodeSelectorTermMatches(term: NodeSelectorTerm, node: KubeObject): boolean {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return false;
  const labels = node.metadata?.labels ?? {};
  for (const req of expressions) {
    if (!requirementMatches(req, Object.hasOwn(labels, req.key) ? labels[req.key] : undefined)) return false;
  }
  for (const req of fields) {
    if (req.key !== 'metadata.name') return false;
    if (!requirementMatches(req, node.metadata?.name)) return false;
  }
  return true;
}

/** The terms are ORed. */
export function nodeSelectorTermsMatch(terms: readonly NodeSelectorTerm[], node: KubeObject): boolean {
  return terms.some((t) => nodeSelectorTermMatches(t, node));
}

function nodeAffinityOf(pod: KubeObject): Record<string, unknown> {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  const affinity = isPlainObject(spec.affinity) ? spec.affinity : {};
  return isPlainObject(affinity.nodeAffinity) ? affinity.nodeAffinity : {};
}

/** `requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`, undefined when absent. */
export function requiredNodeSelectorTerms(pod: KubeObject): NodeSelectorTerm[] | undefined {
  const required = nodeAffinityOf(pod).requiredDuringSchedulingIgnoredDuringExecution;
  if (!isPlainObject(required) || !Array.isArray(required.nodeSelectorTerms)) return undefined;
  return required.nodeSelectorTerms.filter(isPlainObject) as NodeSelectorTerm[];
}

export function preferredSchedulingTerms(pod: KubeObject): PreferredSchedulingTerm[] {
  const preferred = nodeAffinityOf(pod).preferredDuringSchedulingIgnoredDuringExecution;
  return Array.isArray(preferred) ? (preferred.filter((p) => isPlainObject(p) && isPlainObject(p.preference)) as unknown as PreferredSchedulingTerm[]) : [];
}

/** Every `spec.nodeSelector` label equals the node's. */
export function nodeSelectorMatches(pod: KubeObject, node: KubeObject): boolean {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  const selector = isPlainObject(spec.nodeSelector) ? spec.nodeSelector : {};
  const labels = node.metadata?.labels ?? {};
  return Object.entries(selector).every(([k, v]) => Object.hasOwn(labels, k) && labels[k] === v);
}

/** The node satisfies the pod's `nodeSelector` and its required node affinity. */
export function podMatchesNodeSelectorAndAffinity(pod: KubeObject, node: KubeObject): boolean {
  if (!nodeSelectorMatches(pod, node)) return false;
  const terms = requiredNodeSelectorTerms(pod);
  return terms === undefined || nodeSelectorTermsMatch(terms, node);
}

/** The sum of the weights of the preferred terms the node matches (NodeAffinity's raw score). */
export function preferredAffinityWeight(pod: KubeObject, node: KubeObject): number {
  let total = 0;
  for (const p of preferredSchedulingTerms(pod)) {
    if (typeof p.weight === 'number' && p.weight !== 0 && nodeSelectorTermMatches(p.preference, node)) total += p.weight;
  }
  return total;
}
