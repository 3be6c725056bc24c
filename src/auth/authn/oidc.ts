// OpenID Connect ID tokens from one trusted issuer. Discovery and the key set are fetched
// in the background and refreshed periodically (and soon after an unknown key id is seen);
// a request never waits on the issuer.
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import type { AuthenticationResult } from '../types.js';
import { getOwn, setOwn } from '../../apimachinery/own.js';
import { getJson } from './https-get.js';
import type { TokenAuthenticator } from './union.js';

export interface OidcOptions {
  issuerURL: string;
  clientID: string;
  usernameClaim: string;
  /** undefined: the default rule; '-' disables prefixing. */
  usernamePrefix?: string;
  groupsClaim?: string;
  groupsPrefix?: string;
  requiredClaims: Record<string, string>;
  caPem?: string;
  signingAlgs: string[];
  refreshIntervalMs?: number;
}

/** Validates the flags; throws with the flag's name. */
export function validateOidcOptions(o: OidcOptions): void {
  let u: URL;
  try {
    u = new URL(o.issuerURL);
  } catch {
    throw new Error(`--oidc-issuer-url: invalid URL "${o.issuerURL}"`);
  }
  if (u.protocol !== 'https:') throw new Error(`--oidc-issuer-url: "${o.issuerURL}" must use the https scheme`);
  if (!o.clientID) throw new Error('--oidc-client-id: required when --oidc-issuer-url is set');
}

/** `key=value` pairs of --oidc-required-claim. */
export function parseRequiredClaims(list: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new Error(`--oidc-required-claim: "${item}" is not of the form key=value`);
    setOwn(out, item.slice(0, eq), item.slice(eq + 1));
  }
  return out;
}

/** The user a verified token's claims name; throws when the claims do not qualify. */
export function oidcIdentity(payload: JWTPayload, o: OidcOptions): AuthenticationResult {
  const claims = payload as Record<string, unknown>;
  const raw = getOwn(claims, o.usernameClaim);
  if (typeof raw !== 'string' || raw === '') throw new Error(`oidc: claim ${o.usernameClaim} not present`);
  if (o.usernameClaim === 'email' && getOwn(claims, 'email_verified') !== undefined && getOwn(claims, 'email_verified') !== true) {
    throw new Error('oidc: email not verified');
  }
  let prefix: string;
  if (o.usernamePrefix === '-') prefix = '';
  else if (o.usernamePrefix !== undefined && o.usernamePrefix !== '') prefix = o.usernamePrefix;
  else prefix = o.usernameClaim === 'email' ? '' : `${o.issuerURL}#`;
  const groups: string[] = [];
  if (o.groupsClaim) {
    const g = getOwn(claims, o.groupsClaim);
    if (typeof g === 'string') groups.push(g);
    else if (Array.isArray(g) && g.every((x) => typeof x === 'string')) groups.push(...(g as string[]));
    else if (g !== undefined) throw new Error(`oidc: groups claim ${o.groupsClaim} is not a string or an array of strings`);
  }
  for (const [k, v] of Object.entries(o.requiredClaims)) {
    if (getOwn(claims, k) !== v) throw new Error(`oidc: required claim ${k} missing or mismatched`);
  }
  const user: AuthenticationResult['user'] = { username: `${prefix}${raw}`, groups: groups.map((x) => `${o.groupsPrefix ?? ''}${x}`) };
  return { user };
}

export class OidcAuthenticator implements TokenAuthenticator {
  private keySet: ReturnType<typeof createLocalJWKSet> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private lastRefresh = 0;

  constructor(private readonly o: OidcOptions) {
    validateOidcOptions(o);
  }

  /** Loads the keys once (failures are retried in the background) and keeps them fresh. */
  async start(): Promise<void> {
    await this.refresh();
    const every = this.o.refreshIntervalMs ?? 60_000;
    this.timer = setInterval(() => void this.refresh(), every);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Whether the keys have been loaded. */
  ready(): boolean {
    return this.keySet !== undefined;
  }

  refresh(): Promise<void> {
    if (this.refreshing) return this.refreshing;
    this.lastRefresh = Date.now();
    this.refreshing = (async () => {
      try {
        const base = this.o.issuerURL.replace(/\/+$/, '');
        const discovery = await getJson(`${base}/.well-known/openid-configuration`, this.o.caPem);
        if (discovery['issuer'] !== this.o.issuerURL) throw new Error('oidc: discovery issuer does not match');
        const jwksUri = discovery['jwks_uri'];
        if (typeof jwksUri !== 'string') throw new Error('oidc: discovery has no jwks_uri');
        const jwks = await getJson(jwksUri, this.o.caPem);
        if (!Array.isArray(jwks['keys'])) throw new Error('oidc: key set has no keys');
        this.keySet = createLocalJWKSet(jwks as unknown as JSONWebKeySet);
      } catch {
        // Keep the previous keys; the next periodic refresh tries again.
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  async authenticateToken(token: string): Promise<AuthenticationResult | null> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      return null;
    }
    if (unverified.iss !== this.o.issuerURL) return null;
    const keys = this.keySet;
    if (!keys) throw new Error('oidc: authenticator not initialized');
    try {
      const { payload } = await jwtVerify(token, keys, { issuer: this.o.issuerURL, audience: this.o.clientID, algorithms: this.o.signingAlgs });
      return oidcIdentity(payload, this.o);
    } catch (e) {
      // An unknown key may mean the issuer rotated: refresh in the background, at most every 10s.
      if (e instanceof Error && e.name === 'JWKSNoMatchingKey' && Date.now() - this.lastRefresh > 10_000) void this.refresh();
      throw e;
    }
  }
}
