// Forwards one HTTP request to another server and streams the answer back, as
// kube-apiserver's upgrade-aware proxy does for aggregated APIs and the proxy, exec, attach
// and port-forward subresources. Bodies flow both ways with backpressure, never buffered
// whole; an upgrade (SPDY, WebSocket) becomes a byte pipe between the two sockets.
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';

/** Where a request goes and how. */
export interface ProxyTarget {
  /** Scheme (`http:` or `https:`), host, port, and the path with its query as sent upstream. */
  url: URL;
  /** TLS for `https:` targets; the system's roots when `ca` is absent. */
  tls?: {
    ca?: string | Buffer;
    cert?: string | Buffer;
    key?: string | Buffer;
    /** The name the certificate must carry when it differs from the URL's host (a service's DNS name). */
    serverName?: string;
    insecureSkipVerify?: boolean;
  };
  /** Headers set on the upstream request, replacing what the client sent under those names. */
  setHeaders?: OutgoingHttpHeaders;
  /** Client headers never forwarded (lower case), beside the hop-by-hop ones: credentials, impersonation. */
  dropHeaders?: readonly string[];
}

/** The request being forwarded: Node's HTTP/1.1 or HTTP/2 compatibility request (readable). */
export interface ProxiedRequest extends NodeJS.ReadableStream {
  method?: string;
  headers: IncomingHttpHeaders;
}

/** The answer being written: Node's HTTP/1.1 or HTTP/2 compatibility response. */
export interface ProxiedResponse extends NodeJS.WritableStream {
  headersSent: boolean;
  writeHead(status: number, headers?: OutgoingHttpHeaders): unknown;
  on(event: string, listener: (...args: unknown[]) => void): this;
}

/** Raised before any byte of the answer was sent: the caller still answers with a Status. */
export class UpstreamError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'UpstreamError';
  }
}

/** Headers that describe one connection, not the message (RFC 9110 7.6.1), plus HTTP/2 pseudo-headers. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'http2-settings', 'host']);

/** The client's headers as the upstream should see them. `keepUpgrade` keeps `Connection`/`Upgrade` for an upgrade. */
export function forwardedHeaders(incoming: IncomingHttpHeaders, target: ProxyTarget, keepUpgrade = false): OutgoingHttpHeaders {
  const listed = new Set(
    String(incoming.connection ?? '')
      .split(',')
      .map((t) => t.trim().toLowerCase())
      .filter((t) => t && !(keepUpgrade && t === 'upgrade')),
  );
  const drop = new Set(target.dropHeaders ?? []);
  const setNames = new Set(Object.keys(target.setHeaders ?? {}).map((n) => n.toLowerCase()));
  const out: OutgoingHttpHeaders = Object.create(null) as OutgoingHttpHeaders;
  for (const [name, value] of Object.entries(incoming)) {
    const lower = name.toLowerCase();
    if (value === undefined || lower.startsWith(':') || HOP_BY_HOP.has(lower) || listed.has(lower) || drop.has(lower) || setNames.has(lower)) continue;
    out[lower] = value;
  }
  for (const [name, value] of Object.entries(target.setHeaders ?? {})) if (value !== undefined) out[name.toLowerCase()] = value;
  if (keepUpgrade && incoming.upgrade) {
    out.connection = 'Upgrade';
    out.upgrade = incoming.upgrade;
  }
  return out;
}

/** The upstream's answer headers, as the client may receive them (no hop-by-hop ones, which HTTP/2 forbids). */
export function answeredHeaders(upstream: IncomingHttpHeaders): OutgoingHttpHeaders {
  const listed = new Set(
    String(upstream.connection ?? '')
      .split(',')
      .map((t) => t.trim().toLowerCase()),
  );
  const out: OutgoingHttpHeaders = Object.create(null) as OutgoingHttpHeaders;
  for (const [name, value] of Object.entries(upstream)) {
    const lower = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(lower) || listed.has(lower)) continue;
    out[lower] = value;
  }
  return out;
}

function openUpstream(method: string, target: ProxyTarget, headers: OutgoingHttpHeaders, signal?: AbortSignal) {
  const { url, tls } = target;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UpstreamError(`unsupported scheme ${JSON.stringify(url.protocol)}`);
  const common = {
    method,
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port || (url.protocol === 'https:' ? 443 : 80),
    path: url.pathname + url.search,
    headers,
    // One connection per request: nothing of one caller's connection reaches another's.
    agent: false as const,
    ...(signal ? { signal } : {}),
  };
  if (url.protocol === 'http:') return httpRequest(common);
  return httpsRequest({
    ...common,
    ...(tls?.ca ? { ca: tls.ca } : {}),
    ...(tls?.cert ? { cert: tls.cert } : {}),
    ...(tls?.key ? { key: tls.key } : {}),
    servername: tls?.serverName ?? (/^[\d.]+$|:/.test(common.host) ? undefined : common.host),
    rejectUnauthorized: !tls?.insecureSkipVerify,
  });
}

export interface ProxyOptions {
  /** Ends the exchange (client gone, deadline passed); the upstream request is aborted. */
  signal?: AbortSignal;
  /** How long to wait for the upstream's answer headers (the whole exchange is bounded by `signal`). */
  responseHeaderTimeoutMs?: number;
}

/**
 * Forwards `req` to `target` and streams the answer into `res`. Rejects with UpstreamError
 * when the upstream cannot be reached or does not answer in time, before anything was written
 * (the caller answers with a Status); once the answer has begun, a failure ends it abruptly
 * so the client sees a truncated message, never a complete-looking one.
 */
export function proxyRequest(req: ProxiedRequest, res: ProxiedResponse, target: ProxyTarget, opts: ProxyOptions = {}): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let upstream: ReturnType<typeof openUpstream>;
    try {
      upstream = openUpstream(req.method ?? 'GET', target, forwardedHeaders(req.headers, target), opts.signal);
    } catch (err) {
      reject(err instanceof UpstreamError ? err : new UpstreamError(String(err), err));
      return;
    }
    let settled = false;
    const fail = (err: unknown): void => {
      if (settled) return;
      settled = true;
      upstream.destroy();
      if (!res.headersSent) reject(err instanceof UpstreamError ? err : new UpstreamError(err instanceof Error ? err.message : String(err), err));
      else {
        (res as unknown as { destroy?: (e?: Error) => void }).destroy?.(err instanceof Error ? err : undefined);
        resolve();
      }
    };
    const timer = opts.responseHeaderTimeoutMs ? setTimeout(() => fail(new UpstreamError('timeout awaiting response headers')), opts.responseHeaderTimeoutMs) : undefined;
    upstream.on('error', fail);
    upstream.on('response', (answer: IncomingMessage) => {
      if (timer) clearTimeout(timer);
      if (settled) return answer.resume();
      res.writeHead(answer.statusCode ?? 502, answeredHeaders(answer.headers));
      // Streaming answers (watches, logs) go out as they arrive.
      (res as unknown as { flushHeaders?: () => void }).flushHeaders?.();
      answer.on('error', fail);
      answer.on('end', () => {
        settled = true;
        resolve();
      });
      res.on('close', () => {
        if (!settled) fail(new UpstreamError('client went away'));
      });
      answer.pipe(res);
    });
    req.on('error', fail);
    req.pipe(upstream);
  });
}

/**
 * Forwards an HTTP/1.1 upgrade request (the server's `upgrade` event: `req`, its socket and
 * the bytes read past the headers) and, when the upstream switches protocols, joins the two
 * sockets. A refusal from the upstream reaches the client as the upstream wrote it. Rejects
 * with UpstreamError, writing nothing, when the upstream cannot be reached.
 */
export function proxyUpgrade(req: IncomingMessage, clientSocket: Duplex, head: Buffer, target: ProxyTarget, opts: ProxyOptions = {}): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let upstream: ReturnType<typeof openUpstream>;
    try {
      upstream = openUpstream(req.method ?? 'GET', target, forwardedHeaders(req.headers, target, true), opts.signal);
    } catch (err) {
      reject(err instanceof UpstreamError ? err : new UpstreamError(String(err), err));
      return;
    }
    let answered = false;
    upstream.on('error', (err) => {
      if (!answered) reject(new UpstreamError(err.message, err));
      else clientSocket.destroy();
    });
    upstream.on('upgrade', (answer: IncomingMessage, upstreamSocket: Duplex, upstreamHead: Buffer) => {
      answered = true;
      const lines = [`HTTP/1.1 ${answer.statusCode ?? 101} ${answer.statusMessage ?? 'Switching Protocols'}`];
      for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) lines.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}`);
      clientSocket.write(lines.join('\r\n') + '\r\n\r\n');
      if (upstreamHead.length > 0) clientSocket.write(upstreamHead);
      if (head.length > 0) upstreamSocket.write(head);
      const close = (): void => {
        upstreamSocket.destroy();
        clientSocket.destroy();
        resolve();
      };
      upstreamSocket.on('error', close).on('close', close);
      clientSocket.on('error', close).on('close', close);
      upstreamSocket.pipe(clientSocket);
      clientSocket.pipe(upstreamSocket);
    });
    upstream.on('response', (answer: IncomingMessage) => {
      // The upstream refused to switch: pass its answer through and close.
      answered = true;
      const lines = [`HTTP/1.1 ${answer.statusCode ?? 502} ${answer.statusMessage ?? ''}`];
      const headers = answeredHeaders(answer.headers);
      for (const [name, value] of Object.entries(headers)) for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${String(v)}`);
      lines.push('connection: close');
      clientSocket.write(lines.join('\r\n') + '\r\n\r\n');
      answer.pipe(clientSocket);
      answer.on('end', () => {
        clientSocket.end();
        resolve();
      });
    });
    upstream.end();
  });
}

/**
 * Sends a GET with no body to `target` and resolves with the upstream's answer, unread, for a
 * caller that looks at the status before streaming the body (pod logs). Rejects with
 * UpstreamError when the upstream cannot be reached or sends no headers in time.
 */
export function fetchUpstream(target: ProxyTarget, opts: ProxyOptions = {}): Promise<IncomingMessage> {
  return new Promise<IncomingMessage>((resolve, reject) => {
    let upstream: ReturnType<typeof openUpstream>;
    try {
      const headers: OutgoingHttpHeaders = Object.create(null) as OutgoingHttpHeaders;
      for (const [name, value] of Object.entries(target.setHeaders ?? {})) if (value !== undefined) headers[name.toLowerCase()] = value;
      upstream = openUpstream('GET', target, headers, opts.signal);
    } catch (err) {
      reject(err instanceof UpstreamError ? err : new UpstreamError(String(err), err));
      return;
    }
    let answered = false;
    const timer = opts.responseHeaderTimeoutMs
      ? setTimeout(() => {
          upstream.destroy();
          reject(new UpstreamError('timeout awaiting response headers'));
        }, opts.responseHeaderTimeoutMs)
      : undefined;
    upstream.on('error', (err) => {
      if (timer) clearTimeout(timer);
      if (!answered) reject(new UpstreamError(err.message, err));
    });
    upstream.on('response', (answer: IncomingMessage) => {
      if (timer) clearTimeout(timer);
      answered = true;
      resolve(answer);
    });
    upstream.end();
  });
}
