// What the bootstrap token controllers read from a bootstrap token Secret: its type and name,
// its data keys, whether it has expired and whether it may sign cluster-info. Pure.
import { getOwn } from '../../apimachinery/own.js';
import { isPlainObject, type KubeObject } from '../../apimachinery/types.js';
import { longDomainKey, systemNamespace } from '../../naming/index.js';

export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';
export const TOKEN_ID_KEY = 'token-id';
export const TOKEN_SECRET_KEY = 'token-secret';
export const EXPIRATION_KEY = 'expiration';
export const USAGE_SIGNING_KEY = 'usage-bootstrap-signing';

/** `bootstrap.orch.io/token` / `bootstrap.kubernetes.io/token`. */
export function bootstrapTokenSecretType(): string {
  return longDomainKey('token', 'bootstrap');
}

/** Where bootstrap token Secrets live: the system namespace. */
export function bootstrapTokenNamespace(): string {
  return systemNamespace('system');
}

export function isBootstrapTokenSecret(secret: KubeObject): boolean {
  return secret['type'] === bootstrapTokenSecretType() && secret.metadata?.namespace === bootstrapTokenNamespace();
}

/** The token id a Secret's name carries (`bootstrap-token-<id>`), or undefined. */
export function tokenIdFromSecretName(name: string): string | undefined {
  const m = /^bootstrap-token-([a-z0-9]{6})$/.exec(name);
  return m ? m[1] : undefined;
}

/** A data value decoded, or '' when absent or not a string (as Kubernetes reads a missing key). */
export function secretData(secret: KubeObject, key: string): string {
  const data = secret['data'];
  if (!isPlainObject(data)) return '';
  const value = getOwn(data, key);
  return typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : '';
}

// Go's time.RFC3339 layout as time.Parse reads it: a fraction of a second is allowed.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Milliseconds since the epoch of an RFC 3339 time, or undefined when it does not parse. */
export function parseRFC3339(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  // Date would roll 31 February over into March; Go refuses it.
  if (day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
  const t = Date.parse(text);
  return Number.isNaN(t) ? undefined : t;
}

export interface Expiration {
  expired: boolean;
  /** Time left until expiry; 0 when expired or when the token never expires. */
  remainingMs: number;
}

/**
 * The token's expiry as Kubernetes judges it: no `expiration` never expires; one that does
 * not parse counts as expired; one at or before `now` has expired.
 */
export function tokenExpiration(secret: KubeObject, now: Date): Expiration {
  const text = secretData(secret, EXPIRATION_KEY);
  if (text === '') return { expired: false, remainingMs: 0 };
  const at = parseRFC3339(text);
  if (at === undefined) return { expired: true, remainingMs: 0 };
  const remainingMs = at - now.getTime();
  return remainingMs <= 0 ? { expired: true, remainingMs: 0 } : { expired: false, remainingMs };
}

/**
 * The id and secret of a token that may sign cluster-info now: named after its id, with a
 * secret, not expired and `usage-bootstrap-signing: "true"`; undefined otherwise.
 */
export function signingToken(secret: KubeObject, now: Date): { id: string; secret: string } | undefined {
  if (secret['type'] !== bootstrapTokenSecretType()) return undefined;
  const nameId = tokenIdFromSecretName(secret.metadata?.name ?? '');
  if (nameId === undefined) return undefined;
  const id = secretData(secret, TOKEN_ID_KEY);
  if (id === '' || id !== nameId) return undefined;
  const tokenSecret = secretData(secret, TOKEN_SECRET_KEY);
  if (tokenSecret === '') return undefined;
  if (tokenExpiration(secret, now).expired) return undefined;
  if (secretData(secret, USAGE_SIGNING_KEY) !== 'true') return undefined;
  return { id, secret: tokenSecret };
}
