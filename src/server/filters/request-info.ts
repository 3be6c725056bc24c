// Reads what the request addresses (RequestInfo) from its method, path and query before
// anything else looks at it; a path that cannot be read is the router's plain 404.
import { badRequest } from '../../apimachinery/errors.js';
import { wantsPretty } from '../../codec/negotiate.js';
import { genericNotFound, headerValue } from '../http.js';
import { RequestInfoError, parseRequestInfo } from '../request-info.js';
import type { Filter } from './chain.js';

export const withRequestInfo: Filter = (next) => (scope) => {
  const target = parseRequestTarget(scope.req.url ?? '/');
  scope.pathname = target.pathname;
  scope.query = target.query;
  try {
    scope.info = parseRequestInfo(scope.method, scope.pathname, scope.query);
  } catch (e) {
    if (e instanceof RequestInfoError) throw genericNotFound();
    throw e;
  }
  scope.pretty = wantsPretty(scope.query, headerValue(scope.req, 'user-agent'));
  return next(scope);
};

/**
 * Splits an origin-form request target into its path and query, taking the path as sent:
 * no dot-segment removal and no merging of slashes (`new URL()` would turn
 * `configmaps/..` into the namespace). Segments are percent-decoded later, one by one.
 */
export function parseRequestTarget(raw: string): { pathname: string; query: URLSearchParams } {
  if (!raw.startsWith('/')) throw badRequest('malformed request URL');
  const q = raw.indexOf('?');
  const pathname = q < 0 ? raw : raw.slice(0, q);
  let query = q < 0 ? '' : raw.slice(q + 1);
  // A fragment is never sent; if one is, it is not part of the query.
  const hash = query.indexOf('#');
  if (hash >= 0) query = query.slice(0, hash);
  return { pathname, query: new URLSearchParams(query) };
}
