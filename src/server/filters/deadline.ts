// The request deadline: a request that is not long-running (every resource request but a
// watch) must finish within the server's request timeout, or sooner when `?timeout=` asks.
// Past it the request's signal aborts and the client gets 504; the late answer is dropped.
import { ApiError, badRequest } from '../../apimachinery/errors.js';
import { parseDuration } from '../../apimachinery/flags.js';
import { isLongRunning } from '../request-info.js';
import { isPromise, required, type Filter, type RequestAbort } from './chain.js';

/** kube-apiserver's --request-timeout default, also the most a client's `timeout` may ask for. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

export function withRequestDeadline(maxMs: number): Filter {
  return (next) => (scope) => {
    const info = required(scope.info, 'RequestInfo');
    // A connect subresource's wait for its target is bounded by the target's answer-header timeout instead.
    if (!info.isResourceRequest || isLongRunning(info)) return next(scope);
    const ms = requestTimeoutMs(scope.query, maxMs);
    const outcome = next(scope);
    // Answered without waiting: no deadline could have passed.
    return isPromise(outcome) ? withDeadline(outcome, ms, scope.abort) : undefined;
  };
}

/** The deadline of a request that is not a watch: the `timeout` query parameter, capped. */
export function requestTimeoutMs(query: URLSearchParams, max: number): number {
  const raw = query.get('timeout');
  if (raw === null || raw === '') return max;
  let ms: number;
  try {
    ms = parseDuration(raw);
  } catch {
    throw badRequest(`invalid timeout specified in the request URL`);
  }
  return ms > 0 && ms < max ? ms : max;
}

/** The work's outcome, or 504 (and the request's signal aborted) once `ms` pass first; one timer, no race of promises. */
function withDeadline(work: Promise<void>, ms: number, abort: RequestAbort): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      abort.abort();
      reject(new ApiError(504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded', {}));
    }, ms);
    work.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
