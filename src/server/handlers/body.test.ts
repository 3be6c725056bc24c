import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { isApiError } from '../../apimachinery/errors.js';
import type { ServerRequest } from '../http.js';
import { readBody } from './body.js';

function streamRequest(headers: Record<string, string> = {}): PassThrough & ServerRequest {
  return Object.assign(new PassThrough(), { headers, socket: undefined }) as unknown as PassThrough & ServerRequest;
}

test('a body is read whole, chunk by chunk', async () => {
  const req = streamRequest();
  const read = readBody(req);
  req.write('{"a":');
  req.end('1}');
  assert.equal(Buffer.from(await read).toString(), '{"a":1}');
});

test('a body past the limit is a 413, and the rest of it is not read', async () => {
  const req = streamRequest();
  const read = readBody(req, 8);
  req.write('12345');
  req.write('67890');
  await assert.rejects(read, (e: unknown) => isApiError(e) && e.code === 413);
  assert.ok(req.destroyed);
});

test('a declared length past the limit is a 413 before reading', async () => {
  await assert.rejects(readBody(streamRequest({ 'content-length': '9' }), 8), (e: unknown) => isApiError(e) && e.code === 413);
});

test('a body that ends early is an error, not a short body', async () => {
  const req = streamRequest();
  const read = readBody(req);
  req.write('{"a":');
  req.destroy();
  await assert.rejects(read, /Premature close/);
});

test('a body that is only iterable is read by iterating', async () => {
  const req = {
    headers: {},
    socket: undefined,
    on: () => undefined,
    destroy: () => undefined,
    async *[Symbol.asyncIterator]() {
      yield Buffer.from('ab');
      yield 'cd';
    },
  } satisfies ServerRequest;
  assert.equal(Buffer.from(await readBody(req)).toString(), 'abcd');
  await assert.rejects(readBody(req, 3), (e: unknown) => isApiError(e) && e.code === 413);
});
