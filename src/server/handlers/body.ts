// Reads a request body up to the limit; a larger body is a 413 before it is buffered whole.
import { requestEntityTooLarge } from '../../apimachinery/errors.js';
import type { ServerRequest } from '../http.js';

/** kube-apiserver's limit for request bodies: 3 MiB. */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

export async function readBody(req: ServerRequest, limit = MAX_REQUEST_BODY_BYTES): Promise<Uint8Array> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw requestEntityTooLarge(limit);
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
