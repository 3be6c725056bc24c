// Combines the request authenticators the way kube-apiserver does: the first success wins;
// a credential that is presented but invalid fails the request (401) unless another
// authenticator succeeds; with no credential at all the request is anonymous (when enabled).
import { unauthorized } from '../../apimachinery/errors.js';
import type { UserInfo } from '../../apimachinery/types.js';
import type { AuthenticationRequest, AuthenticationResult, Authenticator } from '../types.js';

export const ANONYMOUS_USER = 'system:anonymous';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';
export const AUTHENTICATED_GROUP = 'system:authenticated';

/** Authenticates bearer tokens; `null` when the token is not one it knows. */
export interface TokenAuthenticator {
  authenticateToken(token: string, audiences: string[]): Promise<AuthenticationResult | null>;
}

/** The bearer token of `Authorization: Bearer <token>`, or undefined. */
export function bearerToken(headers: AuthenticationRequest['headers']): string | undefined {
  const raw = headers['authorization'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (!value) return undefined;
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(value);
  return m ? m[1] : undefined;
}

/** Tries each token authenticator; a presented token nobody accepts is a 401. */
export class BearerTokenAuthenticator implements Authenticator {
  constructor(
    private readonly tokens: TokenAuthenticator[],
    private readonly apiAudiences: () => string[],
  ) {}

  async authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | null> {
    const token = bearerToken(req.headers);
    if (token === undefined) return null;
    for (const t of this.tokens) {
      let r: AuthenticationResult | null;
      try {
        r = await t.authenticateToken(token, this.apiAudiences());
      } catch {
        // Detail stays out of the response: it could describe the token.
        continue;
      }
      if (r) return r;
    }
    throw unauthorized();
  }
}

/** Adds `system:authenticated` to every authenticated (non-anonymous) user. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.username === ANONYMOUS_USER) return user;
  if (user.groups.includes(AUTHENTICATED_GROUP) || user.groups.includes(UNAUTHENTICATED_GROUP)) return user;
  return { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}

export function anonymousUser(): UserInfo {
  return { username: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] };
}

/**
 * The whole authentication step. Returns the user (anonymous when allowed and nothing was
 * presented), `null` when nothing authenticated and anonymous is off (the caller answers
 * 401), or throws ApiError 401 for an invalid credential.
 */
export class UnionAuthenticator implements Authenticator {
  constructor(
    private readonly authenticators: Authenticator[],
    private readonly anonymous: boolean,
  ) {}

  async authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | null> {
    let failed = false;
    for (const a of this.authenticators) {
      try {
        const r = await a.authenticate(req);
        if (r) return { ...r, user: withAuthenticatedGroup(r.user) };
      } catch {
        // Any failure of a presented credential is a plain 401; causes stay server-side.
        failed = true;
      }
    }
    if (failed) throw unauthorized();
    return this.anonymous ? { user: anonymousUser() } : null;
  }
}
