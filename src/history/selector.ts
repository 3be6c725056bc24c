// The field selectors of the revisions list: which object's history. Pure; every mistake is a
// 400 that says what is accepted.
import { badRequest } from '../apimachinery/errors.js';
import { parseFieldSelector } from '../apimachinery/fields.js';

/** What a list of revisions asks for; `namespace` comes from the path. */
export interface RevisionSelector {
  group: string;
  resource: string;
  name?: string;
  uid?: string;
}

export const SELECTABLE_FIELDS = ['target.group', 'target.resource', 'target.name', 'target.uid'] as const;

const MAX_SELECTOR_LENGTH = 2048;
const RESOURCE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const UID = /^[A-Za-z0-9][-A-Za-z0-9]{0,127}$/;

function validGroup(g: string): boolean {
  return g === '' || (g.length <= 253 && g.split('.').every((label) => label.length <= 63 && DNS_LABEL.test(label)));
}

/** A name any kind may have (Kubernetes' path segment rule), without what could only be a trick. */
function validName(n: string): boolean {
  return n.length > 0 && n.length <= 253 && n !== '.' && n !== '..' && n !== '__proto__' && !/[/%]/.test(n) && [...n].every((c) => c > ' ' && c !== '\u007f');
}

/** Parses `target.resource=configmaps,target.name=web,...`. */
export function parseRevisionSelector(text: string | undefined): RevisionSelector {
  const required = badRequest(`a field selector on target.resource is required, e.g. fieldSelector=target.resource=configmaps,target.name=web (fields: ${SELECTABLE_FIELDS.join(', ')})`);
  if (!text) throw required;
  if (text.length > MAX_SELECTOR_LENGTH) throw badRequest(`field selector too long: at most ${MAX_SELECTOR_LENGTH} characters`);
  const selector = parseFieldSelector(text);
  const seen = new Map<string, string>();
  for (const r of selector.requirements) {
    if (!(SELECTABLE_FIELDS as readonly string[]).includes(r.field)) {
      throw badRequest(`field label not supported: ${r.field} (fields: ${SELECTABLE_FIELDS.join(', ')})`);
    }
    if (r.operator !== '=') throw badRequest(`field selector ${r.field}: only = is supported`);
    if (seen.has(r.field) && seen.get(r.field) !== r.value) throw badRequest(`field selector: ${r.field} is given twice`);
    seen.set(r.field, r.value);
  }
  const resource = seen.get('target.resource');
  if (resource === undefined) throw required;
  if (resource.length > 63 || !RESOURCE.test(resource)) throw badRequest(`target.resource: "${clip(resource)}" is not a resource name (a lowercase plural such as configmaps)`);
  const group = seen.get('target.group') ?? '';
  if (!validGroup(group)) throw badRequest(`target.group: "${clip(group)}" is not an API group name`);
  const out: RevisionSelector = { group, resource };
  const name = seen.get('target.name');
  if (name !== undefined) {
    if (!validName(name)) throw badRequest(`target.name: "${clip(name)}" is not an object name`);
    out.name = name;
  }
  const uid = seen.get('target.uid');
  if (uid !== undefined) {
    if (!UID.test(uid)) throw badRequest(`target.uid: "${clip(uid)}" is not a uid`);
    out.uid = uid;
  }
  return out;
}

function clip(s: string): string {
  return s.length > 64 ? `${s.slice(0, 64)}...` : s;
}
