// Contracts between the request filters and the authentication and authorization modules.
import type { UserInfo } from '../apimachinery/types.js';

/** What an authenticator may look at. */
export interface AuthenticationRequest {
  headers: Record<string, string | string[] | undefined>;
  /** The client's certificate chain as presented in the TLS handshake, DER, leaf first. */
  clientCertificateChain: Uint8Array[];
  remoteAddress?: string;
}

export interface AuthenticationResult {
  user: UserInfo;
  /** Audiences the credential was valid for, when the authenticator is audience-aware. */
  audiences?: string[];
  /** Warnings for the client (`Warning: 299 - "..."`), e.g. a malformed bearer header that was ignored. */
  warnings?: string[];
}

export interface Authenticator {
  /**
   * `null` when the request carries no credential this authenticator understands. Throws
   * an ApiError 401 when it carries one that is invalid (expired, bad signature, ...).
   */
  authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | null>;
}

/** The request as authorizers see it (Kubernetes' authorizer.Attributes). */
export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  /** The URL path, for non-resource requests. */
  path: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthorizationResult {
  decision: Decision;
  /** Why, for messages and audit; empty when there is nothing to say. */
  reason: string;
}

export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult>;
}
