// The request-scoped state every filter and handler shares, and how filters compose: each
// filter wraps the handler below it, so the first filter in the list runs outermost.
import type { RequestAudit } from '../../audit/index.js';
import type { UserInfo } from '../../apimachinery/types.js';
import type { AuthenticationRequest } from '../../auth/types.js';
import type { ServerRequest, ServerResponse } from '../http.js';
import type { RequestInfo } from '../request-info.js';

/** One request on its way through the chain; filters fill it in as they learn more. */
export interface RequestScope {
  readonly req: ServerRequest;
  readonly res: ServerResponse;
  /** When the request arrived (process.hrtime). */
  readonly started: bigint;
  /** Aborted when the client goes away or the request's deadline passes. */
  readonly abort: AbortController;
  /** The connection the request came on: the HTTP/2 session or the HTTP/1.1 socket. */
  readonly connection: object | undefined;
  /** Warnings for the client, sent as `Warning` headers with the answer. */
  readonly warnings: string[];
  method: string;
  /** The path as sent, undecoded; '/' until the request info filter has read it. */
  pathname: string;
  query: URLSearchParams;
  pretty: boolean;
  info?: RequestInfo;
  /** Request headers with repeated headers kept apart (authentication and impersonation read them). */
  headers?: AuthenticationRequest['headers'];
  /** The user the credentials name. */
  authenticatedUser?: UserInfo;
  /** The user the request acts as: the authenticated user, or whom it impersonates. */
  user?: UserInfo;
  /** The id the `Audit-Id` header carries and audit events name the request by. */
  auditID?: string;
  /** The request's audit event, set by the audit filter when the policy audits the request. */
  audit?: RequestAudit;
  /** Set by priority and fairness on a watch: the watch handler calls it once its initial events are sent. */
  watchInitialized?: () => void;
}

export type Handler = (scope: RequestScope) => Promise<void>;
export type Filter = (next: Handler) => Handler;

/** Wraps `handler` in `filters`, the first outermost. */
export function compose(filters: readonly Filter[], handler: Handler): Handler {
  return filters.reduceRight<Handler>((next, filter) => filter(next), handler);
}

/** The field a filter further out must have set; a missing one is a wiring mistake. */
export function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is not known yet: the filter that sets it must run first`);
  return value;
}
