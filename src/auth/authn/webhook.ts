// The token authentication webhook: a TokenReview POSTed to a remote service, answers
// cached for --authentication-token-webhook-cache-ttl (keyed by a hash of the token).
import { isPlainObject } from '../../apimachinery/types.js';
import { group } from '../../naming/index.js';
import type { AuthenticationResult } from '../types.js';
import { TtlCache, type WebhookClient } from '../webhook-client.js';
import { setOwn } from '../../apimachinery/own.js';
import { digest } from './secure-compare.js';
import type { TokenAuthenticator } from './union.js';

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export class WebhookTokenAuthenticator implements TokenAuthenticator {
  private readonly cache = new TtlCache<AuthenticationResult | null>();

  constructor(
    private readonly client: Pick<WebhookClient, 'post'>,
    private readonly version: 'v1' | 'v1beta1',
    private readonly ttlMs: number,
    private readonly apiAudiences: () => string[],
  ) {}

  async authenticateToken(token: string, audiences: string[]): Promise<AuthenticationResult | null> {
    const key = `${digest(token).toString('hex')}/${audiences.join(',')}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    const spec: Record<string, unknown> = { token };
    if (audiences.length > 0) spec['audiences'] = audiences;
    const answer = await this.client.post({ apiVersion: `${group('authentication')}/${this.version}`, kind: 'TokenReview', spec });
    const status = isPlainObject(answer['status']) ? answer['status'] : {};
    let result: AuthenticationResult | null = null;
    if (status['authenticated'] === true && isPlainObject(status['user']) && typeof status['user']['username'] === 'string' && status['user']['username'] !== '') {
      const u = status['user'];
      // An audience-agnostic answer (no audiences) vouches for the server's own audiences only.
      const answered = strings(status['audiences']);
      const valid = answered.length > 0 ? answered : this.apiAudiences();
      const auds = audiences.filter((a) => valid.includes(a));
      if (audiences.length === 0 || auds.length > 0) {
        const user: AuthenticationResult['user'] = { username: u['username'] as string, groups: strings(u['groups']) };
        if (typeof u['uid'] === 'string' && u['uid']) user.uid = u['uid'];
        if (isPlainObject(u['extra'])) {
          user.extra = {};
          for (const [k, v] of Object.entries(u['extra'])) setOwn(user.extra, k, strings(v));
        }
        result = { user, audiences: auds };
      }
    }
    this.cache.set(key, result, this.ttlMs);
    return result;
  }
}
