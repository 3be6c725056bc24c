// Anything a filter or handler throws becomes the Status the client receives; errors that
// are not API errors are logged as internal errors. A client that reset its stream gets
// nothing, and an answer already under way is only ended.
import { ApiError } from '../../apimachinery/errors.js';
import type { SerializerSet } from '../../codec/serializer.js';
import { headerValue, setWarnings, toApiError, writeStatus } from '../http.js';
import { andCatch, type Filter } from './chain.js';

/** With `serializers`, the Status is written in the media type the request's Accept header asks for. */
export function withPanicRecovery(log: ((msg: string) => void) | undefined, serializers?: SerializerSet): Filter {
  return (next) => (scope) =>
    andCatch(
      () => next(scope),
      (err) => {
        const { req, res } = scope;
        const apiErr = toApiError(err);
        // Method and path only: query values may carry secrets (tokens, field selectors).
        if (apiErr.code >= 500 && !(err instanceof ApiError)) {
          log?.(`internal error on ${logSafe(req.method ?? '')} ${logSafe(scope.pathname)}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        }
        if (scope.abort.aborted && streamClosed(req)) {
          // Nobody to answer.
        } else if (!res.headersSent) {
          setWarnings(res, scope.warnings);
          writeStatus(res, apiErr, scope.pretty, serializers && { accept: headerValue(req, 'accept'), serializers });
        } else if (!res.writableEnded) res.end();
      },
    );
}

/** For log lines: request-derived text, bounded and without control characters. */
function logSafe(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\x00-\x1f\x7f]/g, '?');
  return clean.length > 256 ? `${clean.slice(0, 256)}...` : clean;
}

/** True when the request's HTTP/2 stream is already closed (reset by the client). */
export function streamClosed(req: { stream?: unknown } | object): boolean {
  const stream = (req as { stream?: { closed?: boolean; destroyed?: boolean } }).stream;
  return stream !== undefined && (stream.closed === true || stream.destroyed === true);
}
