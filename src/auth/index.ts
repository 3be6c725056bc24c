// The authentication and authorization module: builds the authenticators, the impersonation
// step and the authorizer chain from flags, and owns the review APIs and the default RBAC
// policy. The server wires `AuthModule` into its filter chain and resource table.
import type { Informer } from '../client/informer.js';
import type { ParsedFlags } from '../apimachinery/flags.js';
import type { UserInfo } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';
import type { RESTStore, ResourceTable, SubresourceHandler, SubresourceHandlerFactory } from '../rest/index.js';
import type { Authenticator, Authorizer } from './types.js';
import { buildAuthenticators } from './authn/build.js';
import type { TokenAuthenticator } from './authn/union.js';
import { buildAuthorizers } from './authz/build.js';
import { impersonate } from './impersonation.js';
import { reviewStores } from './reviews/stores.js';
import { installEscalationChecks, startRBAC } from './rbac/module.js';
import { RBACCache } from './rbac/cache.js';
import { abortController } from '../apimachinery/abort.js';

export { authFlagDefinitions } from './flags.js';
export { forbiddenError, forbiddenMessage } from './authz/union.js';
export { withEscalationCheck, EscalationCheck } from './rbac/escalation.js';
export { distinctHeaders } from './own-keys.js';
export { LoginTokens } from './authn/login-token.js';

interface AuthDeps {
  /** A privileged in-process client (reads secrets, service accounts, RBAC objects). */
  client: ApiClient;
  table: ResourceTable;
  pki: { clientCaFile: string; serviceAccountKeyFile: string; servingCertFile: string };
  /** `https://host:port` as clients reach the server. */
  externalAddress: string;
  /** The console's login tokens (`LoginTokens`), when the console is on. */
  loginTokens?: TokenAuthenticator;
  /**
   * The pods informer the rest of the process holds (the server's cluster half): the Node
   * authorizer reads it rather than keeping a copy of every pod of its own.
   */
  pods?: Informer;
}

interface NonResourceResponse {
  code: number;
  contentType: string;
  body: string;
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
  /** The subresource stores to serve where the kinds declare these handlers (`serviceaccounts/token`). */
  subresources: Partial<Record<SubresourceHandler, SubresourceHandlerFactory>>;
  /** OIDC discovery and JWKS of the service account issuer; undefined for other paths. */
  nonResource(method: string, path: string): Promise<NonResourceResponse | undefined>;
  /** Creates and reconciles the default RBAC policy and starts the module's controllers. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function buildAuth(flags: ParsedFlags, deps: AuthDeps): Promise<AuthModule> {
  const rbacCache = new RBACCache(deps.client);
  const authn = await buildAuthenticators(flags, deps);
  const authz = await buildAuthorizers(flags, { client: deps.client, rbac: rbacCache, ...(deps.pods ? { pods: deps.pods } : {}) });
  const stores = reviewStores({
    authorizer: authz.authorizer,
    rules: authz.rulesFor,
    reviewToken: authn.reviewToken,
    apiAudiences: authn.apiAudiences,
  });
  // Guarded from the start: the server listens before start() runs, and an authorizer other
  // than RBAC (ABAC, Webhook) may already allow writes to roles and bindings then.
  const stopEscalationChecks = installEscalationChecks(deps.table, rbacCache, authz.authorizer);
  const stopRBAC = new AbortController();
  let stopRBACControllers: (() => Promise<void>) | undefined;

  return {
    authenticator: authn.authenticator,
    authorizer: authz.authorizer,
    impersonate: (headers, user) => impersonate(headers, user, authz.authorizer),
    stores,
    subresources: authn.subresources,
    nonResource: authn.nonResource,
    async start() {
      stopRBACControllers = await startRBAC(deps.client, rbacCache, stopRBAC.signal);
      await authz.start();
      await authn.start();
    },
    async stop() {
      stopEscalationChecks();
      abortController(stopRBAC);
      await stopRBACControllers?.();
      await authz.stop();
      await authn.stop();
    },
  };
}
