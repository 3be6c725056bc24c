// The ABAC authorizer: a file of JSON-lines policies, each granting a subject (user or
// group, `*` for any authenticated one) access to resources or non-resource paths,
// optionally read-only.
import { readFile } from 'node:fs/promises';
import { isPlainObject } from '../../apimachinery/types.js';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../types.js';
import { UNAUTHENTICATED_GROUP } from '../authn/union.js';
import { getOwn } from '../../apimachinery/own.js';

interface AbacPolicySpec {
  user?: string;
  group?: string;
  readonly?: boolean;
  apiGroup?: string;
  resource?: string;
  namespace?: string;
  nonResourcePath?: string;
}

/** Parses the policy file; blank lines and `#` comments are skipped. Throws naming the bad line. */
export function parseAbacPolicies(text: string): AbacPolicySpec[] {
  const out: AbacPolicySpec[] = [];
  text.split('\n').forEach((line, i) => {
    const t = line.trim();
    if (t === '' || t.startsWith('#')) return;
    let doc: unknown;
    try {
      doc = JSON.parse(t);
    } catch {
      throw new Error(`error reading policy file line ${i + 1}: not JSON`);
    }
    if (!isPlainObject(doc) || getOwn(doc, 'kind') !== 'Policy' || !isPlainObject(getOwn(doc, 'spec'))) throw new Error(`error reading policy file line ${i + 1}: not a Policy`);
    out.push(policySpec(getOwn(doc, 'spec') as Record<string, unknown>, i + 1));
  });
  return out;
}

const STRING_FIELDS = ['user', 'group', 'apiGroup', 'resource', 'namespace', 'nonResourcePath'] as const;

// Only the spec's own fields of the right type count: a line's other keys (`__proto__`
// included) are ignored, and an inherited property never reads as a grant.
function policySpec(raw: Record<string, unknown>, line: number): AbacPolicySpec {
  const spec: AbacPolicySpec = {};
  for (const field of STRING_FIELDS) {
    const v = getOwn(raw, field);
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') throw new Error(`error reading policy file line ${line}: spec.${field} must be a string`);
    spec[field] = v;
  }
  const readonly = getOwn(raw, 'readonly');
  if (readonly !== undefined && readonly !== null) {
    if (typeof readonly !== 'boolean') throw new Error(`error reading policy file line ${line}: spec.readonly must be a boolean`);
    spec.readonly = readonly;
  }
  return spec;
}

function subjectMatches(p: AbacPolicySpec, attrs: AuthorizationAttributes): boolean {
  // Wildcards never cover unauthenticated requests: those need explicit grants.
  const anonymous = attrs.user.groups.includes(UNAUTHENTICATED_GROUP);
  let matched = false;
  if (p.user) {
    if (p.user === '*') {
      if (anonymous) return false;
      matched = true;
    } else if (p.user === attrs.user.username) matched = true;
    else return false;
  }
  if (p.group) {
    if (p.group === '*') {
      if (anonymous) return false;
      matched = true;
    } else if (attrs.user.groups.includes(p.group)) matched = true;
    else return false;
  }
  return matched;
}

const READ_ONLY = new Set(['get', 'list', 'watch']);

function wild(v: string | undefined, actual: string): boolean {
  return v === '*' || v === actual;
}

function abacAllows(p: AbacPolicySpec, attrs: AuthorizationAttributes): boolean {
  if (!subjectMatches(p, attrs)) return false;
  if (p.readonly && !READ_ONLY.has(attrs.verb)) return false;
  if (attrs.isResourceRequest) {
    return wild(p.namespace, attrs.namespace) && wild(p.resource, attrs.resource) && wild(p.apiGroup, attrs.apiGroup);
  }
  const path = p.nonResourcePath;
  if (!path) return false;
  if (path === '*' || path === attrs.path) return true;
  return path.endsWith('*') && attrs.path.startsWith(path.slice(0, -1));
}

export class AbacAuthorizer implements Authorizer {
  constructor(private readonly policies: AbacPolicySpec[]) {}

  static async fromFile(path: string): Promise<AbacAuthorizer> {
    return new AbacAuthorizer(parseAbacPolicies(await readFile(path, 'utf8')));
  }

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    if (this.policies.some((p) => abacAllows(p, attrs))) return { decision: 'Allow', reason: '' };
    return { decision: 'NoOpinion', reason: 'No policy matched.' };
  }
}
