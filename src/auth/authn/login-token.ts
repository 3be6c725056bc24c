// Short-lived login tokens for the web console: minted at start for the identity of the
// written admin kubeconfig, kept in memory only (as a digest), good for this one server
// until they expire on the server's clock. A bearer token like any other once presented.
import { randomBytes } from 'node:crypto';
import { unauthorized } from '../../apimachinery/errors.js';
import type { Clock } from '../../apimachinery/clock.js';
import type { UserInfo } from '../../apimachinery/types.js';
import type { AuthenticationResult } from '../types.js';
import { digest } from './secure-compare.js';
import type { TokenAuthenticator } from './union.js';

/** 256 random bits, base64url: no character a URL fragment would need to escape. */
const TOKEN_BYTES = 32;

interface Minted {
  user: UserInfo;
  expiresAt: number;
}

export class LoginTokens implements TokenAuthenticator {
  /** By the token's SHA-256 (hex): the tokens themselves are not kept. */
  private readonly tokens = new Map<string, Minted>();

  constructor(private readonly clock: Clock) {}

  /** A new token for `user`, valid for `ttlMs` of the clock's time. */
  mint(user: UserInfo, ttlMs: number): { token: string; expiresAt: Date } {
    if (!(Number.isFinite(ttlMs) && ttlMs > 0)) throw new Error(`login token lifetime must be positive, not ${ttlMs}`);
    this.prune();
    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    const expiresAt = this.clock.now().getTime() + ttlMs;
    this.tokens.set(digest(token).toString('hex'), { user: { ...user, groups: [...(user.groups ?? [])] }, expiresAt });
    return { token, expiresAt: new Date(expiresAt) };
  }

  async authenticateToken(token: string): Promise<AuthenticationResult | null> {
    // A map lookup by digest: the secret is never compared character by character.
    const key = digest(token).toString('hex');
    const minted = this.tokens.get(key);
    if (!minted) return null;
    if (this.clock.now().getTime() >= minted.expiresAt) {
      this.tokens.delete(key);
      throw unauthorized('the console login token has expired');
    }
    return { user: { ...minted.user, groups: [...(minted.user.groups ?? [])] } };
  }

  private prune(): void {
    const now = this.clock.now().getTime();
    for (const [k, m] of this.tokens) if (now >= m.expiresAt) this.tokens.delete(k);
  }
}
