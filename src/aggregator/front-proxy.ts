// The front-proxy contract with extension API servers: the client certificate this server
// presents, the identity headers it sets, and the caller's headers it never forwards.
import type { UserInfo } from '../apimachinery/types.js';

/** The front-proxy settings: the client certificate, and what the ConfigMap publishes. */
export interface FrontProxyConfig {
  clientCert: string | Buffer;
  clientKey: string | Buffer;
  /** PEM of the CA that verifies ordinary client certificates (`client-ca-file`). */
  clientCA: string;
  /** PEM of the CA that signed the front-proxy client certificate (`requestheader-client-ca-file`). */
  requestHeaderCA: string;
  allowedNames: string[];
  usernameHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

/** Headers the caller sent that must never reach the remote: credentials, impersonation, forged front-proxy headers. */
export function droppedHeaders(names: Iterable<string>): string[] {
  const out = ['authorization'];
  for (const n of names) {
    const lower = n.toLowerCase();
    if (lower.startsWith('impersonate-') || lower.startsWith('x-remote-')) out.push(lower);
  }
  return out;
}

/** The front-proxy headers that carry `user` (kube's fixed names; values of extra keys path-escaped). */
export function identityHeaders(user: UserInfo): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = { 'x-remote-user': user.username };
  if (user.groups.length > 0) out['x-remote-group'] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra ?? {})) {
    if (values.length > 0) out[`x-remote-extra-${encodeURIComponent(key).toLowerCase()}`] = [...values];
  }
  return out;
}
