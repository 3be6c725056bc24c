// The authentication and authorization module: builds the authenticators, the impersonation
// step and the authorizer chain from flags, and owns the review APIs and the default RBAC
// policy. The server wires `AuthModule` into its filter chain and resource table.
import { readFile } from 'node:fs/promises';
import type { X509Certificate } from 'node:crypto';
import { badRequest } from '../apimachinery/errors.js';
import type { ParsedFlags } from '../apimachinery/flags.js';
import type { UserInfo } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';
import type { RESTStore, ResourceTable } from '../registry/types.js';
import type { Authenticator, Authorizer } from './types.js';
import { UnionAuthenticator } from './authn/union.js';
import { X509Authenticator, parseCertificateBundle } from './authn/x509.js';
import { UnionAuthorizer, alwaysAllow, alwaysDeny } from './authz/union.js';

export { authFlagDefinitions } from './flags.js';
export { forbiddenError, forbiddenMessage } from './authz/union.js';

export interface AuthDeps {
  /** A privileged in-process client (reads secrets, service accounts, RBAC objects). */
  client: ApiClient;
  table: ResourceTable;
  pki: { clientCaFile: string; serviceAccountKeyFile: string; servingCertFile: string };
  /** `https://host:port` as clients reach the server. */
  externalAddress: string;
}

export interface NonResourceResponse {
  code: number;
  contentType: string;
  body: string;
}

export interface AuthSubresource {
  group: string;
  resource: string;
  subresource: string;
  handler: Partial<RESTStore>;
}

export interface AuthModule {
  /**
   * Resolves the request's user. Anonymous when nothing was presented and anonymous access is
   * on; `null` when nothing authenticated and it is off (answer 401); throws ApiError 401 for
   * an invalid credential. Authenticated users carry `system:authenticated`.
   */
  authenticator: Authenticator;
  /** The --authorization-mode chain. On anything but Allow, answer `forbiddenError(attrs, reason)`. */
  authorizer: Authorizer;
  /** Applies Impersonate-* headers (checking the caller may); returns the user unchanged without them. */
  impersonate(headers: Record<string, string | string[] | undefined>, user: UserInfo): Promise<UserInfo>;
  /** The review APIs, to add to the resource table. */
  stores: RESTStore[];
  /** Subresource handlers to install on stored resources (serviceaccounts/token). */
  subresources: AuthSubresource[];
  /** OIDC discovery and JWKS of the service account issuer; undefined for other paths. */
  nonResource(method: string, path: string): Promise<NonResourceResponse | undefined>;
  /** Creates and reconciles the default RBAC policy and starts the module's controllers. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

async function loadBundle(path: string, flag: string): Promise<X509Certificate[]> {
  try {
    return parseCertificateBundle(await readFile(path, 'utf8'));
  } catch (e) {
    throw new Error(`--${flag}: cannot load ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export async function buildAuth(flags: ParsedFlags, deps: AuthDeps): Promise<AuthModule> {
  const clientCAs = await loadBundle(flags.string('client-ca-file') ?? deps.pki.clientCaFile, 'client-ca-file');
  const authenticators: Authenticator[] = [new X509Authenticator(() => clientCAs)];
  const authenticator = new UnionAuthenticator(authenticators, flags.boolean('anonymous-auth') ?? true);

  const authorizers: Authorizer[] = [];
  for (const mode of flags.list('authorization-mode')) {
    switch (mode) {
      case 'AlwaysAllow':
        authorizers.push(alwaysAllow);
        break;
      case 'AlwaysDeny':
        authorizers.push(alwaysDeny);
        break;
      case 'RBAC':
      case 'Node':
        // Interim: the superuser group is allowed until the full authorizers land.
        authorizers.push({
          authorize: async (a) =>
            a.user.groups.includes('system:masters') ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' },
        });
        break;
      default:
        throw new Error(`--authorization-mode: unknown authorization mode "${mode}"`);
    }
  }
  const authorizer = new UnionAuthorizer(authorizers);

  return {
    authenticator,
    authorizer,
    async impersonate(headers, user) {
      const wants = Object.keys(headers).some((h) => h.toLowerCase().startsWith('impersonate-'));
      if (wants) throw badRequest('impersonation is not available yet');
      return user;
    },
    stores: [],
    subresources: [],
    async nonResource() {
      return undefined;
    },
    async start() {},
    async stop() {},
  };
}
