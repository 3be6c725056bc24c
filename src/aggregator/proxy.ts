// Proxying: a request for a remote APIService's group-version sent to one endpoint of its
// Service, with the caller's identity in front-proxy headers (kube-aggregator's proxyHandler).
import { badRequest, serviceUnavailable } from '../apimachinery/errors.js';
import type { KubeObject, UserInfo } from '../apimachinery/types.js';
import { isGlobalUnicast } from '../proxy/location.js';
import { proxyRequest, UpstreamError, type ProxiedRequest, type ProxiedResponse } from '../proxy/transport.js';
import type { RequestScope } from '../server/filters/chain.js';
import { resolveEndpoint, type APIServiceInfo } from './apiservice.js';
import { forwardedPath, upstreamURL } from './forward-path.js';
import { droppedHeaders, identityHeaders, type FrontProxyConfig } from './front-proxy.js';
import { endpointURL, type RemoteEndpoint } from './remote.js';

/** `/apis/<group>/<version>[/...]` split, or undefined for other paths. */
export function groupVersionOf(pathname: string): { group: string; version: string } | undefined {
  const m = /^\/apis\/([^/]+)\/([^/]+)(?:\/|$)/.exec(pathname);
  if (!m) return undefined;
  return { group: m[1]!, version: m[2]! };
}

/** Whether a raw path has a `.` or `..` segment, plain or percent-encoded. */
export function hasDotSegment(pathname: string): boolean {
  return pathname.split('/').some((seg) => {
    let s = seg;
    try {
      s = decodeURIComponent(seg);
    } catch {
      return false;
    }
    return s === '.' || s === '..';
  });
}

/** Where a remote APIService is reached, or why it cannot be. */
export function endpointFor(
  a: APIServiceInfo,
  service: KubeObject | undefined,
  endpoints: KubeObject | undefined,
  fp: FrontProxyConfig,
): RemoteEndpoint | string {
  const ref = a.service!;
  const r = resolveEndpoint(ref, service, endpoints, (n) => Math.floor(Math.random() * n));
  if (!r.ok) return r.message;
  // Never the server's own host or a link-local service, even from an Endpoints object written before validation refused it.
  if (!isGlobalUnicast(r.host)) return `address not allowed: ${r.host}`;
  return {
    host: r.host,
    port: r.port,
    serverName: `${ref.name}.${ref.namespace}.svc`,
    ...(a.caBundle ? { ca: a.caBundle } : {}),
    insecureSkipTLSVerify: a.insecureSkipTLSVerify,
    clientCert: fp.clientCert,
    clientKey: fp.clientKey,
  };
}

/** Forwards the request in `scope` to `ep` as `user`; a failure to reach the remote is a 503. */
export async function forwardTo(scope: RequestScope, ep: RemoteEndpoint, user: UserInfo, responseHeaderTimeoutMs: number): Promise<void> {
  const rawUrl = scope.req.url ?? scope.pathname;
  const q = rawUrl.indexOf('?');
  // Forward the path exactly as it was authorized, never as a URL parser would resolve it.
  const path = forwardedPath(scope.pathname);
  const url = path === undefined ? undefined : upstreamURL(endpointURL(ep, ''), path, q >= 0 ? rawUrl.slice(q + 1).split('#')[0]! : '');
  if (!url) throw badRequest(`invalid path: ${JSON.stringify(scope.pathname)}`);
  try {
    await proxyRequest(scope.req as unknown as ProxiedRequest, scope.res as unknown as ProxiedResponse, {
      url,
      tls: {
        serverName: ep.serverName,
        insecureSkipVerify: ep.insecureSkipTLSVerify,
        ...(ep.ca ? { ca: ep.ca } : {}),
        ...(ep.clientCert ? { cert: ep.clientCert } : {}),
        ...(ep.clientKey ? { key: ep.clientKey } : {}),
      },
      setHeaders: identityHeaders(user),
      dropHeaders: droppedHeaders(Object.keys(scope.req.headers)),
    }, { signal: scope.abort.signal, responseHeaderTimeoutMs });
  } catch (err) {
    if (err instanceof UpstreamError) {
      if (scope.abort.signal.aborted) throw err;
      throw serviceUnavailable(err.message);
    }
    throw err;
  }
}
