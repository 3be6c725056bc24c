// The small surface of Node's HTTP/1.1 and HTTP/2 compatibility objects the server uses,
// and the helpers that write answers: bodies, Status errors, headers.
import type { IncomingHttpHeaders } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { ApiError, internalError, isApiError, type Status } from '../apimachinery/errors.js';
import { negotiateStatus } from '../codec/negotiate.js';
import { encodeJson, type SerializerSet } from '../codec/serializer.js';
import { stringifyJson } from '../codec/json.js';
import { inGoOrder } from '../codec/field-order.js';

export interface ServerRequest extends AsyncIterable<Buffer | string> {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
  /** Header names and values as received, in order (repeated headers kept apart). */
  rawHeaders?: string[];
  socket: unknown;
  on(event: 'close' | 'aborted', listener: () => void): unknown;
  destroy(err?: Error): unknown;
}

export interface ServerResponse {
  statusCode: number;
  headersSent: boolean;
  readonly writableEnded: boolean;
  setHeader(name: string, value: string | number | string[]): unknown;
  getHeader(name: string): unknown;
  removeHeader(name: string): void;
  write(chunk: Uint8Array | string, cb?: (err?: Error | null) => void): boolean;
  end(chunk?: Uint8Array | string): unknown;
  on(event: 'close', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
  flushHeaders?(): void;
}

/** The peer certificate chain of a TLS request, DER, leaf first. */
export function clientCertificateChain(req: ServerRequest): Uint8Array[] {
  const socket = req.socket as Partial<TLSSocket> | undefined;
  if (!socket || typeof socket.getPeerCertificate !== 'function') return [];
  const chain: Uint8Array[] = [];
  let cert = socket.getPeerCertificate(true) as { raw?: Buffer; issuerCertificate?: unknown; fingerprint256?: string } | undefined;
  const seen = new Set<string>();
  while (cert && cert.raw && !seen.has(cert.fingerprint256 ?? '')) {
    seen.add(cert.fingerprint256 ?? '');
    chain.push(new Uint8Array(cert.raw));
    cert = cert.issuerCertificate as typeof cert;
  }
  return chain;
}

export function remoteAddress(req: ServerRequest): string | undefined {
  const socket = req.socket as { remoteAddress?: string } | undefined;
  return socket?.remoteAddress;
}

export function headerValue(req: ServerRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Writes a whole answer. HEAD requests get the headers only. */
export function writeBody(res: ServerResponse, code: number, contentType: string, body: Uint8Array | string, head = false): void {
  if (res.headersSent || res.writableEnded) return;
  res.statusCode = code;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  res.end(head ? undefined : body);
}

/** 404 for a path nothing is served at, as Kubernetes' router answers it (empty details). */
export function genericNotFound(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

/** 405 for a path that is served, but not for this method, as Kubernetes' router answers it. */
export function methodNotAllowed(): ApiError {
  return new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

/** Turns anything thrown into the Status a client receives; unknown errors are 500s. */
export function toApiError(err: unknown): ApiError {
  if (isApiError(err)) return err;
  return internalError(err);
}

/**
 * Writes a Status error, with Retry-After when the Status asks for it. With the request's
 * Accept header and the server's serializers it is written in the media type the client
 * asked for; when no entry can carry it, as indented JSON (kube-apiserver's fallback).
 */
export function writeStatus(res: ServerResponse, err: ApiError | Status, pretty = false, negotiation?: { accept: string | undefined; serializers: SerializerSet }): void {
  const status = err instanceof ApiError ? err.status : err;
  if (res.headersSent || res.writableEnded) return;
  const retry = status.details?.retryAfterSeconds;
  if (retry !== undefined) res.setHeader('Retry-After', String(retry));
  const body = status as unknown as Record<string, unknown>;
  if (!negotiation) {
    writeBody(res, status.code, 'application/json', encodeJson(body, pretty));
    return;
  }
  // A 406 is the Accept header failing for this endpoint: kube-apiserver writes it raw.
  const choice = status.code === 406 ? undefined : negotiateStatus(negotiation.accept, negotiation.serializers);
  if (!choice) {
    writeBody(res, status.code, 'application/json', stringifyJson(inGoOrder(body), 2));
    return;
  }
  writeBody(res, status.code, choice.contentType, choice.serializer.encode(body, { pretty }));
}

/** Adds the warnings collected during a request as `Warning: 299 - "..."` headers. */
export function setWarnings(res: ServerResponse, warnings: string[]): void {
  if (warnings.length === 0 || res.headersSent) return;
  let total = 0;
  const values: string[] = [];
  for (const w of warnings) {
    const text = w.length > 256 ? w.slice(0, 256) : w;
    total += text.length;
    if (total > 4096) break;
    values.push(`299 - ${JSON.stringify(text)}`);
  }
  res.setHeader('Warning', values);
}
