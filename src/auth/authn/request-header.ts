// The authenticating proxy: identity headers are trusted only from a client whose
// certificate verifies against --requestheader-client-ca-file and whose common name is
// allowed by --requestheader-allowed-names.
import type { X509Certificate } from 'node:crypto';
import { unauthorized } from '../../apimachinery/errors.js';
import type { AuthenticationRequest, AuthenticationResult, Authenticator } from '../types.js';
import { appendOwn } from '../own-keys.js';
import { getOwn } from '../../apimachinery/own.js';
import { subjectOf, verifyClientChain } from './x509.js';

interface RequestHeaderOptions {
  roots: X509Certificate[];
  allowedNames: string[];
  usernameHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

/** Each occurrence's value: the server passes repeated headers apart (see `distinctHeaders`). */
function allValues(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export class RequestHeaderAuthenticator implements Authenticator {
  constructor(private readonly o: RequestHeaderOptions) {}

  async authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | null> {
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), v]));
    const username = this.o.usernameHeaders.map((h) => allValues(getOwn(headers, h.toLowerCase()))[0] ?? '').find((v) => v !== '');
    if (username === undefined) return null;
    if (req.clientCertificateChain.length === 0) return null;
    try {
      const leaf = verifyClientChain(req.clientCertificateChain, this.o.roots);
      if (this.o.allowedNames.length > 0 && !this.o.allowedNames.includes(subjectOf(leaf).commonName)) throw new Error('common name not allowed');
    } catch {
      // Not the proxy: its headers are ignored; the certificate may still be a client's own.
      throw unauthorized();
    }
    const groups = this.o.groupHeaders.flatMap((h) => allValues(getOwn(headers, h.toLowerCase())));
    const extra: Record<string, string[]> = {};
    for (const prefix of this.o.extraHeaderPrefixes.map((p) => p.toLowerCase())) {
      for (const [name, value] of Object.entries(headers)) {
        if (!name.startsWith(prefix) || name.length === prefix.length) continue;
        let key = name.slice(prefix.length);
        try {
          key = decodeURIComponent(key);
        } catch {
          // keep the raw key
        }
        appendOwn(extra, key.toLowerCase(), allValues(value));
      }
    }
    const user: AuthenticationResult['user'] = { username, groups };
    if (Object.keys(extra).length > 0) user.extra = extra;
    return { user };
  }
}
