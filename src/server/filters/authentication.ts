// Authentication: who the credentials name, or 401. Parsing and verifying the client
// certificate dominates the cost of small requests, and it cannot change within a TLS
// connection: when a request carries no header an authenticator could read, the
// connection's last answer is reused for a few seconds.
import { unauthorized } from '../../apimachinery/errors.js';
import type { UserInfo } from '../../apimachinery/types.js';
import { distinctHeaders } from '../../auth/own-keys.js';
import type { Authenticator } from '../../auth/types.js';
import { clientCertificateChain, remoteAddress } from '../http.js';
import type { Filter, Outcome, RequestScope } from './chain.js';

const AUTH_CACHE_MS = 10_000;
const ANONYMOUS_USER = 'system:anonymous';

/** Headers no authenticator reads (credentials come as Authorization, proxy or Impersonate-* headers). */
const PLAIN_HEADERS = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'connection',
  'content-length',
  'content-type',
  'host',
  'keep-alive',
  'kubectl-command',
  'kubectl-session',
  'te',
  'transfer-encoding',
  'user-agent',
  'x-request-id',
]);

function onlyPlainHeaders(headers: Record<string, unknown>): boolean {
  for (const name of Object.keys(headers)) if (!name.startsWith(':') && !PLAIN_HEADERS.has(name)) return false;
  return true;
}

export function withAuthentication(authenticator: Authenticator, onAuthenticated: (connection: object | undefined) => void): Filter {
  const cache = new WeakMap<object, { user: UserInfo; until: number }>();

  /** The connection's cached user, when the request carries nothing else an authenticator could read. */
  const cached = (scope: RequestScope): UserInfo | undefined => {
    const { req, connection } = scope;
    if (connection === undefined || !onlyPlainHeaders(req.headers)) return undefined;
    const hit = cache.get(connection);
    return hit && hit.until > Date.now() ? hit.user : undefined;
  };

  const authenticate = async (scope: RequestScope): Promise<UserInfo> => {
    const { req, connection } = scope;
    const cacheable = connection !== undefined && onlyPlainHeaders(req.headers);
    const result = await authenticator.authenticate({
      headers: scope.headers ?? req.headers,
      clientCertificateChain: clientCertificateChain(req),
      remoteAddress: remoteAddress(req),
    });
    if (!result) throw unauthorized();
    if (result.warnings) scope.warnings.push(...result.warnings);
    if (cacheable) cache.set(connection, { user: result.user, until: Date.now() + AUTH_CACHE_MS });
    return result.user;
  };

  return (next) => (scope) => {
    // Repeatable headers (groups, extras) are read occurrence by occurrence, never joined.
    scope.headers = scope.req.rawHeaders ? distinctHeaders(scope.req.rawHeaders) : scope.req.headers;
    const proceed = (user: UserInfo): Outcome => {
      if (user.username !== ANONYMOUS_USER) onAuthenticated(scope.connection);
      scope.authenticatedUser = user;
      scope.user = user;
      return next(scope);
    };
    const hit = cached(scope);
    return hit ? proceed(hit) : authenticate(scope).then(proceed);
  };
}
