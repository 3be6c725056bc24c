// A proxy request for the target's root without the trailing slash (`pods/x/proxy`) is sent
// to the slash form with a 301, as kube-apiserver does, so relative links on the target's
// page resolve under the proxy path.
import { badRequest } from '../../apimachinery/errors.js';
import { ADDRESS_NOT_ALLOWED, TargetError } from '../../proxy/location.js';
import type { ConnectRequest } from '../../rest/index.js';

/** Answers the redirect and returns true when `path` (the upstream path) is empty on a GET or HEAD. */
export function proxyRedirect(path: string, r: ConnectRequest): boolean {
  if (path !== '' || r.upgrade || (r.method !== 'GET' && r.method !== 'HEAD')) return false;
  const query = rawQuery(r);
  r.response.writeHead(301, { location: `${r.requestPath}/${query ? `?${query}` : ''}`, 'content-length': '0' });
  r.response.end();
  return true;
}

/** The query as the client sent it, passed to the target untouched. */
export function rawQuery(r: ConnectRequest): string {
  const url = r.request.url ?? '';
  const q = url.indexOf('?');
  if (q < 0) return '';
  const query = url.slice(q + 1);
  const hash = query.indexOf('#');
  return hash < 0 ? query : query.slice(0, hash);
}

/** Builds a proxy target; a target that is not an allowed address answers kube's 400. */
export function proxyTarget(build: () => URL): URL {
  try {
    return build();
  } catch (err) {
    if (err instanceof TargetError) throw badRequest(ADDRESS_NOT_ALLOWED);
    throw err;
  }
}
