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

// Go's unicode.IsSpace: kube-apiserver trims the header with it.
const GO_SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const TRIM_GO_SPACE = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, 'g');

export const EXTRA_SPACE_WARNING = 'the provided Authorization header contains extra space before the bearer token, and is ignored';

/**
 * What `Authorization` presents, read as kube-apiserver does: the first header, trimmed, split
 * at single spaces into at most three parts. `Bearer <token>` presents the second part (so
 * `Bearer a b` presents `a`, which then fails as any unknown token does); an empty second part
 * (`Bearer`, `Bearer  a`) or another scheme presents nothing, and the request goes on as if the
 * header were absent, with a warning for the extra space.
 */
export function parseBearer(headers: AuthenticationRequest['headers']): { token?: string; warning?: string } {
  const raw = headers['authorization'];
  const value = (Array.isArray(raw) ? raw[0] : raw) ?? '';
  const auth = value.replace(TRIM_GO_SPACE, '');
  if (auth === '') return {};
  const first = auth.indexOf(' ');
  if (first < 0 || auth.slice(0, first).toLowerCase() !== 'bearer') return {};
  const rest = auth.slice(first + 1);
  const second = rest.indexOf(' ');
  const token = second < 0 ? rest : rest.slice(0, second);
  if (token === '') return second < 0 ? {} : { warning: EXTRA_SPACE_WARNING };
  return { token };
}

/** The bearer token the request presents, or undefined. */
export function bearerToken(headers: AuthenticationRequest['headers']): string | undefined {
  return parseBearer(headers).token;
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
function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.username === ANONYMOUS_USER) return user;
  if (user.groups.includes(AUTHENTICATED_GROUP) || user.groups.includes(UNAUTHENTICATED_GROUP)) return user;
  return { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}

function anonymousUser(): UserInfo {
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
    if (!this.anonymous) return null;
    const { warning } = parseBearer(req.headers);
    return warning ? { user: anonymousUser(), warnings: [warning] } : { user: anonymousUser() };
  }
}
