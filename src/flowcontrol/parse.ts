// Reading stored FlowSchemas and PriorityLevelConfigurations into the shapes classification
// and queuing use. Storage validation is the strategy's; this is defence in depth: an object
// whose spec cannot be used is skipped (with the reason), as kube-apiserver ignores a broken
// one, and never throws.
import { isPlainObject, type KubeObject } from '../apimachinery/types.js';
import type { FlowSchema, NonResourcePolicyRule, PolicyRulesWithSubjects, PriorityLevel, PriorityLevelSpec, ResourcePolicyRule, Subject } from './types.js';

type Parsed<T> = { ok: T } | { error: string };

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : undefined;
}

function int(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) ? v : typeof v === 'bigint' ? Number(v) : undefined;
}

function rec(v: unknown): Record<string, unknown> | undefined {
  return isPlainObject(v) ? v : undefined;
}

function subject(v: unknown): Subject | undefined {
  const s = rec(v);
  const name = (o: unknown): string | undefined => {
    const n = rec(o)?.name;
    return typeof n === 'string' ? n : undefined;
  };
  switch (s?.kind) {
    case 'User': {
      const n = name(s.user);
      return n === undefined ? undefined : { kind: 'User', user: { name: n } };
    }
    case 'Group': {
      const n = name(s.group);
      return n === undefined ? undefined : { kind: 'Group', group: { name: n } };
    }
    case 'ServiceAccount': {
      const n = name(s.serviceAccount);
      const ns = rec(s.serviceAccount)?.namespace;
      return n === undefined || typeof ns !== 'string' ? undefined : { kind: 'ServiceAccount', serviceAccount: { name: n, namespace: ns } };
    }
    default:
      return undefined;
  }
}

function resourceRule(v: unknown): ResourcePolicyRule | undefined {
  const r = rec(v);
  const verbs = strings(r?.verbs);
  const apiGroups = strings(r?.apiGroups);
  const resources = strings(r?.resources);
  if (!r || !verbs || !apiGroups || !resources) return undefined;
  return { verbs, apiGroups, resources, clusterScope: r.clusterScope === true, namespaces: strings(r.namespaces) ?? [] };
}

function nonResourceRule(v: unknown): NonResourcePolicyRule | undefined {
  const r = rec(v);
  const verbs = strings(r?.verbs);
  const nonResourceURLs = strings(r?.nonResourceURLs);
  return verbs && nonResourceURLs ? { verbs, nonResourceURLs } : undefined;
}

function list<T>(v: unknown, each: (x: unknown) => T | undefined): T[] | undefined {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) return undefined;
  const out: T[] = [];
  for (const x of v) {
    const p = each(x);
    if (p === undefined) return undefined;
    out.push(p);
  }
  return out;
}

function policyRule(v: unknown): PolicyRulesWithSubjects | undefined {
  const r = rec(v);
  if (!r) return undefined;
  const subjects = list(r.subjects, subject);
  const resourceRules = list(r.resourceRules, resourceRule);
  const nonResourceRules = list(r.nonResourceRules, nonResourceRule);
  if (!subjects || !resourceRules || !nonResourceRules) return undefined;
  return { subjects, resourceRules, nonResourceRules };
}

export function parseFlowSchema(o: KubeObject): Parsed<FlowSchema> {
  const spec = rec(o.spec);
  const level = rec(spec?.priorityLevelConfiguration)?.name;
  if (typeof level !== 'string' || level === '') return { error: 'spec.priorityLevelConfiguration.name is missing' };
  const precedence = int(spec?.matchingPrecedence) ?? 1000;
  const method = rec(spec?.distinguisherMethod)?.type;
  if (method !== undefined && method !== 'ByUser' && method !== 'ByNamespace') return { error: `unknown distinguisherMethod.type ${JSON.stringify(method)}` };
  const rules = list(spec?.rules, policyRule);
  if (!rules) return { error: 'spec.rules is malformed' };
  return {
    ok: {
      name: o.metadata?.name ?? '',
      uid: o.metadata?.uid ?? '',
      spec: {
        priorityLevelConfiguration: { name: level },
        matchingPrecedence: precedence,
        ...(method ? { distinguisherMethod: { type: method } } : {}),
        rules,
      },
    },
  };
}

export function parsePriorityLevel(o: KubeObject): Parsed<PriorityLevel> {
  const spec = rec(o.spec);
  const meta = { name: o.metadata?.name ?? '', uid: o.metadata?.uid ?? '' };
  if (spec?.type === 'Exempt') return { ok: { ...meta, spec: { type: 'Exempt' } } };
  if (spec?.type !== 'Limited') return { error: `spec.type must be Exempt or Limited, not ${JSON.stringify(spec?.type)}` };
  const l = rec(spec.limited);
  // v1beta2 objects name the shares `assuredConcurrencyShares`; storage holds v1beta3.
  const shares = int(l?.nominalConcurrencyShares) ?? int(l?.assuredConcurrencyShares) ?? 30;
  if (shares <= 0) return { error: 'spec.limited.nominalConcurrencyShares must be positive' };
  const lendable = int(l?.lendablePercent);
  const borrowing = int(l?.borrowingLimitPercent);
  if (lendable !== undefined && (lendable < 0 || lendable > 100)) return { error: 'spec.limited.lendablePercent must be between 0 and 100' };
  if (borrowing !== undefined && borrowing < 0) return { error: 'spec.limited.borrowingLimitPercent must not be negative' };
  const lr = rec(l?.limitResponse);
  let out: PriorityLevelSpec;
  if (lr?.type === 'Queue') {
    const q = rec(lr.queuing);
    const queues = int(q?.queues) ?? 64;
    const handSize = int(q?.handSize) ?? 8;
    const queueLengthLimit = int(q?.queueLengthLimit) ?? 50;
    if (queues <= 0 || queues > 512 || handSize <= 0 || handSize > queues || queueLengthLimit <= 0) {
      return { error: 'spec.limited.limitResponse.queuing is out of range' };
    }
    out = { type: 'Limited', limited: { nominalConcurrencyShares: shares, limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit } } } };
  } else if (lr === undefined || lr.type === 'Reject') {
    out = { type: 'Limited', limited: { nominalConcurrencyShares: shares, limitResponse: { type: 'Reject' } } };
  } else {
    return { error: `unknown limitResponse.type ${JSON.stringify(lr.type)}` };
  }
  if (lendable !== undefined) out.limited!.lendablePercent = lendable;
  if (borrowing !== undefined) out.limited!.borrowingLimitPercent = borrowing;
  return { ok: { ...meta, spec: out } };
}
