// Forwarding a connect request to where its store resolved it, in the two ways
// kube-apiserver's upgrade-aware handler is used: as a proxy (pods/services/nodes `proxy`:
// any method, upgrades passed through, the X-Forwarded-* headers, an unreachable target is
// 503 `error trying to reach service: ...`) and as a stream to a node agent (`exec`,
// `attach`, `portforward`: an upgrade is required, an unreachable agent is 500
// `error dialing backend: ...`).
import { ApiError, badRequest, serviceUnavailable } from '../../apimachinery/errors.js';
import { proxyRequest, proxyUpgrade, UpstreamError, type ProxyTarget } from '../../proxy/transport.js';
import type { ConnectRequest } from '../../rest/index.js';
import { unknownError } from './kubelet.js';

/** The client's credentials end with authentication: they never reach the target. */
export function credentialHeaders(headers: Record<string, unknown>): string[] {
  return Object.keys(headers)
    .map((h) => h.toLowerCase())
    .filter((h) => h === 'authorization' || h.startsWith('impersonate-') || h.startsWith('x-remote-'));
}

function remoteAddressOf(req: ConnectRequest['request']): string | undefined {
  return (req as { socket?: { remoteAddress?: string } }).socket?.remoteAddress;
}

/** `X-Forwarded-For` with the client's address appended, as Go's reverse proxy writes it. */
function forwardedFor(req: ConnectRequest['request']): string | undefined {
  const client = remoteAddressOf(req)?.replace(/^::ffff:/, '');
  if (!client) return undefined;
  const prior = req.headers['x-forwarded-for'];
  const list = Array.isArray(prior) ? prior.join(', ') : prior;
  return list ? `${list}, ${client}` : client;
}

/**
 * Node's socket error as Go's dialer words it, so messages read as kube-apiserver's:
 * `dial tcp 10.0.0.1:10250: connect: connection refused`.
 */
export function dialErrorText(err: unknown, url: URL): string {
  const cause = err instanceof UpstreamError && err.cause !== undefined ? err.cause : err;
  const code = (cause as { code?: string } | undefined)?.code;
  const host = url.host;
  switch (code) {
    case 'ECONNREFUSED':
      return `dial tcp ${host}: connect: connection refused`;
    case 'EHOSTUNREACH':
      return `dial tcp ${host}: connect: no route to host`;
    case 'ENETUNREACH':
      return `dial tcp ${host}: connect: network is unreachable`;
    case 'ETIMEDOUT':
      return `dial tcp ${host}: i/o timeout`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${url.hostname}: no such host`;
    case 'ECONNRESET':
      return `read tcp ${host}: read: connection reset by peer`;
    default:
      break;
  }
  const message = err instanceof Error ? err.message : String(err);
  return message === 'timeout awaiting response headers' ? 'net/http: timeout awaiting response headers' : message;
}

export interface ForwardOptions {
  /** `proxy`: any method, upgrade optional; `stream`: an upgrade is required (exec, attach, port-forward). */
  mode: 'proxy' | 'stream';
  target: URL;
  tls?: ProxyTarget['tls'];
}

function isUpgrade(r: ConnectRequest): boolean {
  return r.upgrade !== undefined;
}

/** Forwards `r` to `opts.target` (path and query already set) and answers the client. */
export async function forward(r: ConnectRequest, signal: AbortSignal, opts: ForwardOptions): Promise<void> {
  const { target } = opts;
  if (opts.mode === 'stream' && !isUpgrade(r)) throw badRequest('Upgrade request required');
  const setHeaders: Record<string, string> = {};
  const xff = forwardedFor(r.request);
  if (xff) setHeaders['x-forwarded-for'] = xff;
  if (opts.mode === 'proxy' && !isUpgrade(r)) {
    // kube's proxy transport tells the target which API path the client asked for.
    setHeaders['x-forwarded-uri'] = r.requestPath;
  }
  const proxyTarget: ProxyTarget = {
    url: target,
    ...(opts.tls ? { tls: opts.tls } : {}),
    setHeaders,
    dropHeaders: credentialHeaders(r.request.headers as Record<string, unknown>),
  };
  try {
    if (r.upgrade) {
      await proxyUpgrade(r.request as Parameters<typeof proxyUpgrade>[0], r.upgrade.socket, r.upgrade.head, proxyTarget, { signal });
    } else {
      await proxyRequest(r.request, r.response as Parameters<typeof proxyRequest>[1], proxyTarget, { signal, responseHeaderTimeoutMs: r.responseHeaderTimeoutMs });
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (signal.aborted) throw err;
    if (opts.mode === 'proxy') {
      if (r.upgrade) throw unknownError(500, `error dialing backend: ${dialErrorText(err, target)}`);
      throw serviceUnavailable(`error trying to reach service: ${dialErrorText(err, target)}`);
    }
    throw unknownError(500, `error dialing backend: ${dialErrorText(err, target)}`);
  }
}
