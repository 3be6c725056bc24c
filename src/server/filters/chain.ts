// The request-scoped state every filter and handler shares, and how filters compose: each
// filter wraps the handler below it, so the first filter in the list runs outermost.
// A filter or handler that has nothing to wait for returns without a promise, and the chain
// awaits only what is a promise: most small requests cross every filter without one.
import { abortController } from '../../apimachinery/abort.js';
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
  readonly abort: RequestAbort;
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

/** Done when it returns, or when its promise settles. */
export type Outcome = void | Promise<void>;
export type Handler = (scope: RequestScope) => Outcome;
export type Filter = (next: Handler) => Handler;

/**
 * A request's cancellation. Most requests are answered without anything listening for it, so
 * the AbortSignal is made only when something asks for one (a queued request, a watch, a
 * storage call that takes a signal); `aborted` is read without making it.
 */
export class RequestAbort {
  #controller: AbortController | undefined;
  #aborted = false;

  get aborted(): boolean {
    return this.#aborted;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) abortController(this.#controller);
    }
    return this.#controller.signal;
  }

  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    if (this.#controller) abortController(this.#controller);
  }
}

/** True when `outcome` is a promise still to be awaited. */
export function isPromise<T>(outcome: T | Promise<T>): outcome is Promise<T> {
  return typeof (outcome as { then?: unknown } | undefined)?.then === 'function';
}

/** Runs `next`, then `done` (also when it threw); synchronously when `next` returned without a promise. */
export function andFinally(next: () => Outcome, done: () => void): Outcome {
  let outcome: Outcome;
  try {
    outcome = next();
  } catch (err) {
    done();
    throw err;
  }
  if (!isPromise(outcome)) {
    done();
    return;
  }
  return outcome.finally(done);
}

/** Runs `next`; what it throws or rejects with goes to `onError`, in the same turn when it threw. */
export function andCatch(next: () => Outcome, onError: (err: unknown) => Outcome): Outcome {
  let outcome: Outcome;
  try {
    outcome = next();
  } catch (err) {
    return onError(err);
  }
  return isPromise(outcome) ? outcome.then(undefined, onError) : undefined;
}

/** Wraps `handler` in `filters`, the first outermost. */
export function compose(filters: readonly Filter[], handler: Handler): Handler {
  return filters.reduceRight<Handler>((next, filter) => filter(next), handler);
}

/** The field a filter further out must have set; a missing one is a wiring mistake. */
export function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is not known yet: the filter that sets it must run first`);
  return value;
}
