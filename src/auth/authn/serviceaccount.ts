// Service account tokens: JWTs this server signs (bound tokens from the TokenRequest
// subresource, legacy tokens stored in Secrets), their validation as bearer tokens, and the
// issuer's discovery documents.
import { randomUUID, type KeyObject } from 'node:crypto';
import { SignJWT, decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { ApiError, badRequest, conflict, invalid, invalidField, isApiError, notSupportedField, type FieldError } from '../../apimachinery/errors.js';
import { isPlainObject, type KubeObject, type UserInfo } from '../../apimachinery/types.js';
import { rfc3339 } from '../../apimachinery/time.js';
import type { ApiClient } from '../../client/types.js';
import { group, longDomain, longDomainKey, productName } from '../../naming/index.js';
import type { CreateOptions, RESTStore, RequestContext, SubresourceDefinition, SubresourceStore } from '../../rest/index.js';
import type { AuthenticationResult } from '../types.js';
import { keyId, publicJwk, signingAlgorithm } from './keys.js';
import { secretEquals } from './secure-compare.js';
import type { TokenAuthenticator } from './union.js';

const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

function serviceAccountGroups(namespace: string): string[] {
  return [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`];
}

/** The issuer of legacy Secret-based tokens. */
function legacyIssuer(): string {
  return `${productName()}/serviceaccount`;
}

export function serviceAccountTokenSecretType(): string {
  return longDomainKey('service-account-token');
}

function legacyClaim(name: string): string {
  return `${longDomain()}/serviceaccount/${name}`;
}

interface BoundRef {
  kind: 'Pod' | 'Secret';
  name: string;
  uid: string;
}

/** The private claim of bound tokens: `orch.io` / `kubernetes.io`. */
interface PrivateClaims {
  namespace: string;
  serviceaccount: { name: string; uid: string };
  pod?: { name: string; uid: string };
  secret?: { name: string; uid: string };
}

interface ServiceAccountTokenOptions {
  /** Read at use: the default issuer is the server's address, known only once it listens. */
  issuers: () => string[];
  apiAudiences: () => string[];
  signingKey?: KeyObject;
  verifyKeys: KeyObject[];
  lookup: boolean;
  maxExpirationSeconds?: number;
  jwksUri?: string;
  client: ApiClient;
}

const SECRETS = { group: '', version: 'v1', resource: 'secrets' };
const PODS = { group: '', version: 'v1', resource: 'pods' };
const SERVICE_ACCOUNTS = { group: '', version: 'v1', resource: 'serviceaccounts' };

function intersect(a: string[], b: string[]): string[] {
  return a.filter((x) => b.includes(x));
}

async function getOrUndefined(client: ApiClient, r: typeof PODS, ns: string, name: string): Promise<KubeObject | undefined> {
  try {
    return await client.get(r, ns, name);
  } catch (e) {
    if (isApiError(e) && e.code === 404) return undefined;
    throw e;
  }
}

export class ServiceAccountTokens implements TokenAuthenticator {
  constructor(private readonly opts: ServiceAccountTokenOptions) {}

  get issuer(): string {
    return this.opts.issuers()[0] ?? '';
  }

  private async sign(payload: JWTPayload): Promise<string> {
    const key = this.opts.signingKey;
    if (!key) throw new ApiError(500, 'InternalError', 'Internal error occurred: no service account signing key configured');
    return new SignJWT(payload).setProtectedHeader({ alg: signingAlgorithm(key), kid: keyId(key) }).sign(key);
  }

  /** A legacy (non-expiring) token for a token Secret of a service account. */
  async issueLegacyToken(namespace: string, account: { name: string; uid: string }, secretName: string): Promise<string> {
    return this.sign({
      iss: legacyIssuer(),
      sub: serviceAccountUsername(namespace, account.name),
      [legacyClaim('namespace')]: namespace,
      [legacyClaim('secret.name')]: secretName,
      [legacyClaim('service-account.name')]: account.name,
      [legacyClaim('service-account.uid')]: account.uid,
    });
  }

  /** A bound token for TokenRequest. */
  async issueBoundToken(namespace: string, account: { name: string; uid: string }, audiences: string[], expirationSeconds: number, bound?: BoundRef, now = new Date()): Promise<{ token: string; expires: Date }> {
    const iat = Math.floor(now.getTime() / 1000);
    const exp = iat + expirationSeconds;
    const priv: PrivateClaims = { namespace, serviceaccount: { name: account.name, uid: account.uid } };
    if (bound?.kind === 'Pod') priv.pod = { name: bound.name, uid: bound.uid };
    if (bound?.kind === 'Secret') priv.secret = { name: bound.name, uid: bound.uid };
    const token = await this.sign({
      iss: this.issuer,
      sub: serviceAccountUsername(namespace, account.name),
      aud: audiences,
      iat,
      nbf: iat,
      exp,
      jti: randomUUID(),
      [longDomain()]: priv,
    });
    return { token, expires: new Date(exp * 1000) };
  }

  private async verify(token: string, issuer: string): Promise<JWTPayload> {
    const header = decodeProtectedHeader(token);
    const keys = this.opts.verifyKeys.filter((k) => (header.kid ? keyId(k) === header.kid : true));
    const candidates = keys.length > 0 ? keys : this.opts.verifyKeys;
    for (const key of candidates) {
      try {
        const { payload } = await jwtVerify(token, key, { issuer, algorithms: [signingAlgorithm(key)], clockTolerance: 60 });
        return payload;
      } catch {
        // try the next key
      }
    }
    throw new Error('invalid service account token');
  }

  async authenticateToken(token: string, audiences: string[]): Promise<AuthenticationResult | null> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      return null;
    }
    const iss = unverified.iss ?? '';
    if (iss === legacyIssuer()) return this.authenticateLegacy(token, audiences);
    if (!this.opts.issuers().includes(iss)) return null;
    const payload = await this.verify(token, iss);
    const tokenAuds = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
    const auds = intersect(audiences, tokenAuds);
    if (auds.length === 0) throw new Error('token audiences are invalid');
    if (typeof payload.exp !== 'number') throw new Error('token has no expiry');
    const priv = payload[longDomain()];
    if (!isPlainObject(priv) || typeof priv['namespace'] !== 'string' || !isPlainObject(priv['serviceaccount'])) throw new Error('token lacks its private claims');
    const claims = priv as unknown as PrivateClaims;
    const ns = claims.namespace;
    const sa = claims.serviceaccount;
    if (payload.sub !== serviceAccountUsername(ns, sa.name)) throw new Error('token subject does not match its claims');
    if (this.opts.lookup) {
      await this.checkAccount(ns, sa.name, sa.uid);
      if (claims.pod) await this.checkBound(PODS, ns, claims.pod);
      if (claims.secret) await this.checkBound(SECRETS, ns, claims.secret);
    }
    const user: UserInfo = { username: serviceAccountUsername(ns, sa.name), uid: sa.uid, groups: serviceAccountGroups(ns) };
    if (claims.pod) user.extra = { [longDomainKey('pod-name', 'authentication')]: [claims.pod.name], [longDomainKey('pod-uid', 'authentication')]: [claims.pod.uid] };
    return { user, audiences: auds };
  }

  private async authenticateLegacy(token: string, audiences: string[]): Promise<AuthenticationResult> {
    const payload = await this.verify(token, legacyIssuer());
    const ns = payload[legacyClaim('namespace')];
    const secretName = payload[legacyClaim('secret.name')];
    const name = payload[legacyClaim('service-account.name')];
    const uid = payload[legacyClaim('service-account.uid')];
    if (typeof ns !== 'string' || typeof secretName !== 'string' || typeof name !== 'string' || typeof uid !== 'string') throw new Error('token lacks its claims');
    // Legacy tokens carry no audience: they are good for this server's own audiences only.
    const auds = intersect(audiences, this.opts.apiAudiences());
    if (auds.length === 0) throw new Error('token audiences are invalid');
    if (this.opts.lookup) {
      const secret = await getOrUndefined(this.opts.client, SECRETS, ns, secretName);
      if (!secret || secret.metadata?.deletionTimestamp) throw new Error('token secret no longer exists');
      const data = isPlainObject(secret['data']) ? secret['data'] : {};
      const stored = typeof data['token'] === 'string' ? Buffer.from(data['token'], 'base64').toString('utf8') : '';
      if (!secretEquals(stored, token)) throw new Error('token does not match its secret');
      await this.checkAccount(ns, name, uid);
    }
    return { user: { username: serviceAccountUsername(ns, name), uid, groups: serviceAccountGroups(ns) }, audiences: auds };
  }

  private async checkAccount(ns: string, name: string, uid: string): Promise<void> {
    const sa = await getOrUndefined(this.opts.client, SERVICE_ACCOUNTS, ns, name);
    if (!sa || sa.metadata?.deletionTimestamp) throw new Error('service account no longer exists');
    if (uid && sa.metadata?.uid !== uid) throw new Error('service account was recreated');
  }

  private async checkBound(r: typeof PODS, ns: string, ref: { name: string; uid: string }): Promise<void> {
    const obj = await getOrUndefined(this.opts.client, r, ns, ref.name);
    if (!obj || obj.metadata?.deletionTimestamp) throw new Error('bound object no longer exists');
    if (obj.metadata?.uid !== ref.uid) throw new Error('bound object was recreated');
  }

  // -------------------------------------------------------------------------------------
  // TokenRequest: `create` on serviceaccounts/<name>/token.

  /** The store of `serviceaccounts/token` (`definition`) of the service accounts store. */
  tokenRequestStore(serviceAccounts: RESTStore, definition: SubresourceDefinition): SubresourceStore {
    return {
      resource: serviceAccounts.definition,
      definition,
      create: (ctx: RequestContext, namespace: string, name: string, obj: KubeObject, opts: CreateOptions) => this.tokenRequest(ctx, namespace, obj, opts, name),
    };
  }

  private async tokenRequest(_ctx: RequestContext, namespace: string, obj: KubeObject, opts: CreateOptions, name: string): Promise<KubeObject> {
    const gk = { group: group('authentication'), kind: 'TokenRequest' };
    const account = await this.opts.client.get(SERVICE_ACCOUNTS, namespace, name);
    const spec = isPlainObject(obj['spec']) ? obj['spec'] : {};
    const errors: FieldError[] = [];
    const expRaw = spec['expirationSeconds'];
    let expirationSeconds = DEFAULT_EXPIRATION_SECONDS;
    if (expRaw !== undefined && expRaw !== null) {
      // An int64 beyond 2^53 decodes as a bigint: out of range either way.
      if (typeof expRaw === 'bigint') errors.push(invalidField('spec.expirationSeconds', expRaw, expRaw < 0n ? 'may not specify a duration less than 10 minutes' : 'may not specify a duration larger than 2^32 seconds'));
      else if (typeof expRaw !== 'number' || !Number.isInteger(expRaw)) errors.push(invalidField('spec.expirationSeconds', expRaw, 'must be an integer'));
      else if (expRaw < MIN_EXPIRATION_SECONDS) errors.push(invalidField('spec.expirationSeconds', expRaw, 'may not specify a duration less than 10 minutes'));
      else if (expRaw > MAX_EXPIRATION_SECONDS) errors.push(invalidField('spec.expirationSeconds', expRaw, 'may not specify a duration larger than 2^32 seconds'));
      else expirationSeconds = expRaw;
    }
    const requestedAuds = Array.isArray(spec['audiences']) ? spec['audiences'].filter((a): a is string => typeof a === 'string') : [];
    const audiences = requestedAuds.length > 0 ? requestedAuds : this.opts.apiAudiences();
    let bound: BoundRef | undefined;
    const ref = spec['boundObjectRef'];
    if (isPlainObject(ref)) {
      const kind = ref['kind'];
      if (kind !== 'Pod' && kind !== 'Secret') errors.push(notSupportedField('spec.boundObjectRef.kind', kind, ['Pod', 'Secret']));
      else if (ref['apiVersion'] !== undefined && ref['apiVersion'] !== 'v1') errors.push(invalidField('spec.boundObjectRef.apiVersion', ref['apiVersion'], 'must be "v1"'));
      else bound = { kind, name: typeof ref['name'] === 'string' ? ref['name'] : '', uid: typeof ref['uid'] === 'string' ? ref['uid'] : '' };
    }
    if (errors.length > 0) throw invalid(gk, name, errors);
    if (opts.validate) await opts.validate(obj, undefined);
    if (bound) {
      const target = await this.opts.client.get(bound.kind === 'Pod' ? PODS : SECRETS, namespace, bound.name);
      const uid = target.metadata?.uid ?? '';
      if (bound.uid && bound.uid !== uid) {
        throw conflict(
          { group: '', resource: bound.kind },
          bound.name,
          `the UID in the bound object reference (${bound.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
        );
      }
      if (bound.kind === 'Pod') {
        const podSpec = isPlainObject(target['spec']) ? target['spec'] : {};
        if ((podSpec['serviceAccountName'] ?? 'default') !== name) throw badRequest(`cannot bind token for serviceaccount "${name}" to pod running with different serviceaccount name.`);
      }
      bound.uid = uid;
    }
    if (this.opts.maxExpirationSeconds !== undefined && expirationSeconds > this.opts.maxExpirationSeconds) expirationSeconds = this.opts.maxExpirationSeconds;
    const now = new Date();
    const { token, expires } = await this.issueBoundToken(namespace, { name, uid: account.metadata?.uid ?? '' }, audiences, expirationSeconds, bound, now);
    const outSpec: Record<string, unknown> = { audiences, expirationSeconds, boundObjectRef: bound ? { kind: bound.kind, apiVersion: 'v1', name: bound.name, uid: bound.uid } : null };
    return {
      apiVersion: `${group('authentication')}/v1`,
      kind: 'TokenRequest',
      metadata: { name, namespace, creationTimestamp: rfc3339(now) },
      spec: outSpec,
      status: { token, expirationTimestamp: rfc3339(expires) },
    };
  }

  // -------------------------------------------------------------------------------------
  // Issuer discovery.

  discoveryDocument(): Record<string, unknown> {
    const algs = [...new Set(this.opts.verifyKeys.map((k) => signingAlgorithm(k)))].sort();
    return {
      issuer: this.issuer,
      jwks_uri: this.opts.jwksUri ?? `${this.issuer.replace(/\/+$/, '')}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: algs,
    };
  }

  jwks(): Record<string, unknown> {
    const seen = new Set<string>();
    const keys: Record<string, unknown>[] = [];
    for (const k of this.opts.verifyKeys) {
      const jwk = publicJwk(k);
      if (seen.has(String(jwk['kid']))) continue;
      seen.add(String(jwk['kid']));
      keys.push(jwk);
    }
    return { keys };
  }
}
