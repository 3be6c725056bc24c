// Builds the authenticators from flags, in kube-apiserver's order: authenticating proxy,
// client certificates, then bearer tokens (static file, service accounts, bootstrap, OIDC,
// webhook), then anonymous. Token authenticators without a notion of audiences (static file,
// bootstrap, OIDC) vouch for the server's own audiences only (`audiences.ts`).
import { readFile } from 'node:fs/promises';
import type { KeyObject } from 'node:crypto';
import type { ParsedFlags } from '../../apimachinery/flags.js';
import type { ApiClient } from '../../client/types.js';
import type { SubresourceHandler, SubresourceHandlerFactory } from '../../rest/index.js';
import type { AuthenticationResult, Authenticator } from '../types.js';
import { WebhookClient } from '../webhook-client.js';
import { audienceAgnostic } from './audiences.js';
import { BootstrapTokenAuthenticator } from './bootstrap-token.js';
import { privateKeyFromPem, publicKeysFromPem, readPublicKeys } from './keys.js';
import { OidcAuthenticator, parseRequiredClaims } from './oidc.js';
import { RequestHeaderAuthenticator } from './request-header.js';
import { ServiceAccountTokens } from './serviceaccount.js';
import { LegacyTokenController } from './legacy-token-controller.js';
import { TokenFileAuthenticator } from './token-file.js';
import { BearerTokenAuthenticator, UnionAuthenticator, type TokenAuthenticator } from './union.js';
import { WebhookTokenAuthenticator } from './webhook.js';
import { X509Authenticator, parseCertificateBundle } from './x509.js';

interface AuthnDeps {
  client: ApiClient;
  pki: { clientCaFile: string; serviceAccountKeyFile: string; servingCertFile: string };
  externalAddress: string;
  /** The console's login tokens, tried first among the bearer tokens (only this server knows them). */
  loginTokens?: TokenAuthenticator;
}

interface BuiltAuthenticators {
  authenticator: Authenticator;
  apiAudiences: () => string[];
  reviewToken(token: string, audiences: string[]): Promise<AuthenticationResult | null>;
  /** The subresource stores authentication serves, by the handler name the kinds declare. */
  subresources: Partial<Record<SubresourceHandler, SubresourceHandlerFactory>>;
  nonResource(method: string, path: string): Promise<{ code: number; contentType: string; body: string } | undefined>;
  serviceAccounts: ServiceAccountTokens;
  start(): Promise<void>;
  stop(): Promise<void>;
}

async function readText(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new Error(`--${flag}: cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export async function buildAuthenticators(flags: ParsedFlags, deps: AuthnDeps): Promise<BuiltAuthenticators> {
  const request: Authenticator[] = [];

  const proxyCA = flags.string('requestheader-client-ca-file');
  const usernameHeaders = flags.list('requestheader-username-headers');
  if (proxyCA && usernameHeaders.length > 0) {
    request.push(
      new RequestHeaderAuthenticator({
        roots: parseCertificateBundle(await readText(proxyCA, 'requestheader-client-ca-file')),
        allowedNames: flags.list('requestheader-allowed-names'),
        usernameHeaders,
        groupHeaders: flags.list('requestheader-group-headers'),
        extraHeaderPrefixes: flags.list('requestheader-extra-headers-prefix'),
      }),
    );
  } else if (proxyCA || usernameHeaders.length > 0) {
    throw new Error('--requestheader-client-ca-file and --requestheader-username-headers must be set together');
  }

  const clientCaFile = flags.string('client-ca-file') ?? deps.pki.clientCaFile;
  let clientCAs;
  try {
    clientCAs = parseCertificateBundle(await readText(clientCaFile, 'client-ca-file'));
  } catch (e) {
    throw new Error(`--client-ca-file: ${e instanceof Error ? e.message : String(e)}`);
  }
  request.push(new X509Authenticator(() => clientCAs));

  // Service account keys: the signing key signs; every key file verifies.
  const signingFile = flags.string('service-account-signing-key-file') ?? deps.pki.serviceAccountKeyFile;
  let signingKey: KeyObject | undefined;
  try {
    signingKey = privateKeyFromPem(await readText(signingFile, 'service-account-signing-key-file'));
  } catch (e) {
    if (flags.string('service-account-signing-key-file')) throw e;
    signingKey = undefined;
  }
  const keyFiles = flags.list('service-account-key-file');
  const verifyKeys: KeyObject[] = [];
  if (keyFiles.length > 0) for (const f of keyFiles) verifyKeys.push(...(await readPublicKeys(f)));
  else verifyKeys.push(...publicKeysFromPem(await readText(signingFile, 'service-account-key-file')));
  const issuerFlag = flags.list('service-account-issuer');
  const issuers = () => (issuerFlag.length > 0 ? issuerFlag : [deps.externalAddress]);
  const audiencesFlag = flags.list('api-audiences');
  const apiAudiences = () => (audiencesFlag.length > 0 ? audiencesFlag : issuers());
  const maxExp = flags.number('service-account-max-token-expiration');
  const serviceAccounts = new ServiceAccountTokens({
    issuers,
    apiAudiences,
    signingKey,
    verifyKeys,
    lookup: flags.boolean('service-account-lookup') ?? true,
    maxExpirationSeconds: maxExp !== undefined ? Math.floor(maxExp / 1000) : undefined,
    jwksUri: flags.string('service-account-jwks-uri'),
    client: deps.client,
  });

  const tokens: TokenAuthenticator[] = [];
  if (deps.loginTokens) tokens.push(audienceAgnostic(deps.loginTokens, apiAudiences));
  const tokenFile = flags.string('token-auth-file');
  if (tokenFile) {
    try {
      tokens.push(audienceAgnostic(await TokenFileAuthenticator.fromFile(tokenFile), apiAudiences));
    } catch (e) {
      throw new Error(`--token-auth-file: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  tokens.push(serviceAccounts);
  if (flags.boolean('enable-bootstrap-token-auth')) tokens.push(audienceAgnostic(new BootstrapTokenAuthenticator(deps.client), apiAudiences));
  let oidc: OidcAuthenticator | undefined;
  const issuerURL = flags.string('oidc-issuer-url');
  if (issuerURL) {
    const caFile = flags.string('oidc-ca-file');
    oidc = new OidcAuthenticator({
      issuerURL,
      clientID: flags.string('oidc-client-id') ?? '',
      usernameClaim: flags.string('oidc-username-claim') ?? 'sub',
      usernamePrefix: flags.string('oidc-username-prefix'),
      groupsClaim: flags.string('oidc-groups-claim'),
      groupsPrefix: flags.string('oidc-groups-prefix'),
      requiredClaims: parseRequiredClaims(flags.list('oidc-required-claim')),
      caPem: caFile ? await readText(caFile, 'oidc-ca-file') : undefined,
      signingAlgs: flags.list('oidc-signing-algs').length > 0 ? flags.list('oidc-signing-algs') : ['RS256'],
    });
    tokens.push(audienceAgnostic(oidc, apiAudiences));
  }
  const webhookFile = flags.string('authentication-token-webhook-config-file');
  if (webhookFile) {
    const version = flags.string('authentication-token-webhook-version') ?? 'v1beta1';
    if (version !== 'v1' && version !== 'v1beta1') throw new Error(`--authentication-token-webhook-version: unsupported version "${version}"`);
    tokens.push(new WebhookTokenAuthenticator(new WebhookClient(webhookFile), version, flags.number('authentication-token-webhook-cache-ttl') ?? 120_000, apiAudiences));
  }
  request.push(new BearerTokenAuthenticator(tokens, apiAudiences));

  // As kube-apiserver does: anonymous requests are never combined with the AlwaysAllow mode.
  const anonymous = (flags.boolean('anonymous-auth') ?? true) && !flags.list('authorization-mode').includes('AlwaysAllow');
  const authenticator = new UnionAuthenticator(request, anonymous);
  const legacyTokens = new LegacyTokenController(deps.client, serviceAccounts, clientCaFile);

  return {
    authenticator,
    apiAudiences,
    serviceAccounts,
    async reviewToken(token, audiences) {
      for (const t of tokens) {
        try {
          const r = await t.authenticateToken(token, audiences);
          if (r) return r;
        } catch {
          // try the next authenticator; a token no one accepts is not authenticated
        }
      }
      return null;
    },
    subresources: { ServiceAccountToken: (store, definition) => serviceAccounts.tokenRequestStore(store, definition) },
    async nonResource(method, path) {
      if (method !== 'GET' && method !== 'HEAD') return undefined;
      if (path === '/.well-known/openid-configuration') {
        return { code: 200, contentType: 'application/json', body: JSON.stringify(serviceAccounts.discoveryDocument()) };
      }
      if (path === '/openid/v1/jwks') {
        return { code: 200, contentType: 'application/jwk-set+json', body: JSON.stringify(serviceAccounts.jwks()) };
      }
      return undefined;
    },
    async start() {
      if (oidc) await oidc.start();
      if (signingKey) legacyTokens.start();
    },
    async stop() {
      oidc?.stop();
      legacyTokens.stop();
    },
  };
}
