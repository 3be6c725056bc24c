// Impersonation: `Impersonate-User`, `-Group`, `-Uid` and `-Extra-<key>` headers. The caller
// must be allowed the verb `impersonate` on each requested value; the request then runs as
// the impersonated user.
import { badRequest } from '../apimachinery/errors.js';
import type { UserInfo } from '../apimachinery/types.js';
import { group } from '../naming/index.js';
import { forbiddenError } from './authz/union.js';
import { appendOwn } from './own-keys.js';
import { ANONYMOUS_USER, AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP } from './authn/union.js';
import type { AuthorizationAttributes, Authorizer } from './types.js';

type Headers = Record<string, string | string[] | undefined>;

const USER = 'impersonate-user';
const UID = 'impersonate-uid';
const GROUP = 'impersonate-group';
const EXTRA_PREFIX = 'impersonate-extra-';

function values(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/** Repeatable headers: distinct values when the server keeps them apart, else the joined form. */
function repeated(v: string | string[] | undefined): string[] {
  if (Array.isArray(v)) return v;
  return v === undefined ? [] : v.split(/,\s*/);
}

/** Splits `system:serviceaccount:<ns>:<name>`; undefined for other names. */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  const prefix = 'system:serviceaccount:';
  if (!username.startsWith(prefix)) return undefined;
  const parts = username.slice(prefix.length).split(':');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { namespace: parts[0], name: parts[1] };
}

function decodeExtraKey(raw: string): string {
  try {
    return decodeURIComponent(raw).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

export async function impersonate(headers: Headers, caller: UserInfo, authorizer: Authorizer): Promise<UserInfo> {
  let username: string | undefined;
  let uid: string | undefined;
  const groups: string[] = [];
  const extra: Record<string, string[]> = {};
  let any = false;
  for (const [rawName, rawValue] of Object.entries(headers)) {
    const name = rawName.toLowerCase();
    if (!name.startsWith('impersonate-')) continue;
    const vs = values(rawValue);
    if (name === USER) {
      any = true;
      username = vs[0];
    } else if (name === UID) {
      any = true;
      uid = vs[0];
    } else if (name === GROUP) {
      any = true;
      groups.push(...repeated(rawValue));
    } else if (name.startsWith(EXTRA_PREFIX)) {
      any = true;
      const key = decodeExtraKey(name.slice(EXTRA_PREFIX.length));
      appendOwn(extra, key, repeated(rawValue));
    }
  }
  if (!any) return caller;
  if (username === undefined || username === '') {
    const asked = [groups.length > 0 ? 'groups' : '', Object.keys(extra).length > 0 ? 'extra' : '', uid !== undefined ? 'uid' : ''].filter(Boolean);
    throw badRequest(`requested ${asked.join(', ')} without impersonating a user`);
  }

  const base = (resource: string, name: string, extraAttrs: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes => ({
    user: caller,
    verb: 'impersonate',
    isResourceRequest: true,
    path: '',
    apiGroup: '',
    apiVersion: '',
    resource,
    subresource: '',
    namespace: '',
    name,
    ...extraAttrs,
  });
  const checks: AuthorizationAttributes[] = [];
  const sa = splitServiceAccountUsername(username);
  if (sa) checks.push(base('serviceaccounts', sa.name, { namespace: sa.namespace, apiVersion: 'v1' }));
  else checks.push(base('users', username, { apiVersion: 'v1' }));
  for (const g of groups) checks.push(base('groups', g, { apiVersion: 'v1' }));
  const authn = group('authentication');
  for (const [key, vs] of Object.entries(extra)) {
    for (const v of vs) checks.push(base('userextras', v, { apiGroup: authn, apiVersion: 'v1', subresource: key }));
  }
  if (uid !== undefined) checks.push(base('uids', uid, { apiGroup: authn, apiVersion: 'v1' }));
  for (const attrs of checks) {
    const r = await authorizer.authorize(attrs);
    if (r.decision !== 'Allow') throw forbiddenError(attrs, r.reason);
  }

  const finalGroups = [...groups];
  if (sa && groups.length === 0) finalGroups.push('system:serviceaccounts', `system:serviceaccounts:${sa.namespace}`);
  if (username !== ANONYMOUS_USER) {
    if (!finalGroups.includes(AUTHENTICATED_GROUP) && !finalGroups.includes(UNAUTHENTICATED_GROUP)) finalGroups.push(AUTHENTICATED_GROUP);
  } else if (!finalGroups.includes(UNAUTHENTICATED_GROUP)) finalGroups.push(UNAUTHENTICATED_GROUP);
  const out: UserInfo = { username, groups: finalGroups };
  if (uid !== undefined) out.uid = uid;
  if (Object.keys(extra).length > 0) out.extra = extra;
  return out;
}
