// Reads a request body up to the limit; a larger body is a 413 before it is buffered whole.
import type { Readable } from 'node:stream';
import { requestEntityTooLarge } from '../../apimachinery/errors.js';
import type { ServerRequest } from '../http.js';

/** kube-apiserver's limit for request bodies: 3 MiB. */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/** What a body that ends before its end reads as (the error an async iteration of it gives). */
function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

/**
 * The body's bytes. Read with listeners rather than an async iterator: the iterator costs
 * several promises and stream hooks per request, a large share of a small write's work.
 */
export function readBody(req: ServerRequest, limit = MAX_REQUEST_BODY_BYTES): Promise<Uint8Array> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(requestEntityTooLarge(limit));
  return isStream(req) ? readStream(req, limit) : readIterable(req, limit);
}

type StreamRequest = ServerRequest & Pick<Readable, 'readableEnded' | 'destroyed' | 'errored' | 'on' | 'off'>;

function isStream(req: ServerRequest): req is StreamRequest {
  return typeof (req as Partial<StreamRequest>).off === 'function' && typeof (req as Partial<StreamRequest>).readableEnded === 'boolean';
}

function readStream(req: StreamRequest, limit: number): Promise<Uint8Array> {
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  if (req.destroyed) return Promise.reject(req.errored ?? prematureClose());
  return new Promise<Uint8Array>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer | string): void => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buf.byteLength;
      if (size > limit) {
        done();
        // As an abandoned iteration would, stop reading: the rest of the body is not wanted.
        req.destroy();
        reject(requestEntityTooLarge(limit));
        return;
      }
      chunks.push(buf);
    };
    const onEnd = (): void => {
      done();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onError = (err: Error): void => {
      done();
      reject(err);
    };
    const onClose = (): void => {
      done();
      reject(req.errored ?? prematureClose());
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** A body that is only iterable (no stream events to listen to). */
async function readIterable(req: ServerRequest, limit: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buf.byteLength;
    if (size > limit) throw requestEntityTooLarge(limit);
    chunks.push(buf);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}
