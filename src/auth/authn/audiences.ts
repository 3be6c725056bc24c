// Audiences for authenticators that have no notion of them (static token file, bootstrap
// tokens, OIDC), as kube-apiserver wraps them: such a credential is only good for the API
// server itself, so it authenticates only when the audiences asked for include one of the
// server's own (`--api-audiences`, by default the service account issuers), and the answer
// carries that intersection. A TokenReview asking for another audience is not authenticated.
import type { AuthenticationResult } from '../types.js';
import type { TokenAuthenticator } from './union.js';

/** The requested audiences the server's own include, in the requested order. */
export function intersectAudiences(requested: readonly string[], own: readonly string[]): string[] {
  return requested.filter((a) => own.includes(a));
}

/**
 * `delegate` limited to the server's audiences. With no server audiences, or no audiences
 * asked for, it answers as the delegate does (kube-apiserver leaves it unwrapped then).
 */
export function audienceAgnostic(delegate: TokenAuthenticator, apiAudiences: () => string[]): TokenAuthenticator {
  return {
    async authenticateToken(token: string, audiences: string[]): Promise<AuthenticationResult | null> {
      const own = apiAudiences();
      if (own.length === 0 || audiences.length === 0) return delegate.authenticateToken(token, audiences);
      const auds = intersectAudiences(audiences, own);
      // Not for this authenticator: the next one may still know the token.
      if (auds.length === 0) return null;
      const result = await delegate.authenticateToken(token, audiences);
      return result ? { ...result, audiences: auds } : null;
    },
  };
}
