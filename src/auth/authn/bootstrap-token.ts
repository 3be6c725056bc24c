// Bootstrap tokens: `<id>.<secret>` bearer tokens backed by Secrets `bootstrap-token-<id>` of
// the bootstrap token type in the system namespace.
import { isApiError } from '../../apimachinery/errors.js';
import { isPlainObject, type KubeObject } from '../../apimachinery/types.js';
import type { ApiClient } from '../../client/types.js';
import { longDomainKey, systemNamespace } from '../../naming/index.js';
import type { AuthenticationResult } from '../types.js';
import { secretEquals } from './secure-compare.js';
import type { TokenAuthenticator } from './union.js';

const BOOTSTRAP_TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const BOOTSTRAPPERS_GROUP = 'system:bootstrappers';

function bootstrapTokenSecretType(): string {
  return longDomainKey('token', 'bootstrap');
}

function data(secret: KubeObject, key: string): string | undefined {
  const d = secret['data'];
  if (isPlainObject(d) && typeof d[key] === 'string') return Buffer.from(d[key], 'base64').toString('utf8');
  const s = secret['stringData'];
  if (isPlainObject(s) && typeof s[key] === 'string') return s[key];
  return undefined;
}

/** The identity a bootstrap token Secret grants for `tokenSecret`, or null. Pure; `now` for expiry. */
export function bootstrapIdentity(secret: KubeObject, id: string, tokenSecret: string, now: Date): AuthenticationResult | null {
  if (secret['type'] !== bootstrapTokenSecretType()) return null;
  if (secret.metadata?.deletionTimestamp) return null;
  const storedId = data(secret, 'token-id');
  const storedSecret = data(secret, 'token-secret');
  if (storedId !== id || storedSecret === undefined || !secretEquals(storedSecret, tokenSecret)) return null;
  if (data(secret, 'usage-bootstrap-authentication') !== 'true') return null;
  const expiration = data(secret, 'expiration');
  if (expiration !== undefined) {
    const t = Date.parse(expiration);
    if (Number.isNaN(t) || t <= now.getTime()) return null;
  }
  const groups = [BOOTSTRAPPERS_GROUP];
  const extra = data(secret, 'auth-extra-groups');
  if (extra) {
    for (const g of extra.split(',').map((s) => s.trim())) {
      if (!/^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/.test(g)) return null;
      if (!groups.includes(g)) groups.push(g);
    }
  }
  return { user: { username: `system:bootstrap:${id}`, groups } };
}

export class BootstrapTokenAuthenticator implements TokenAuthenticator {
  constructor(private readonly client: ApiClient) {}

  async authenticateToken(token: string): Promise<AuthenticationResult | null> {
    const m = BOOTSTRAP_TOKEN_PATTERN.exec(token);
    if (!m) return null;
    const [, id, tokenSecret] = m as unknown as [string, string, string];
    let secret: KubeObject;
    try {
      secret = await this.client.get({ group: '', version: 'v1', resource: 'secrets' }, systemNamespace('system'), `bootstrap-token-${id}`);
    } catch (e) {
      if (isApiError(e) && e.code === 404) return null;
      throw e;
    }
    return bootstrapIdentity(secret, id, tokenSecret, new Date());
  }
}
