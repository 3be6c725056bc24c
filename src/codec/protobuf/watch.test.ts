// Watch framing: 4-byte big-endian lengths around WatchEvent messages whose object is a
// full envelope; a reader that reassembles frames from arbitrary chunks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { setFlavor } from '../../naming/index.js';
import { decodeObject, encodeObject, encodeWatchEvent, WatchFrameReader } from './index.js';

setFlavor('orch');

function configMap(name: string, rv: string, data: Record<string, string>): KubeObject {
  return {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: rv, creationTimestamp: '2024-01-02T03:04:05Z' },
    data,
  };
}

const events: { type: string; object: KubeObject }[] = [
  { type: 'ADDED', object: configMap('a', '10', { k: 'v' }) },
  { type: 'MODIFIED', object: configMap('a', '11', { k: 'v2', big: 'x'.repeat(70_000) }) },
  { type: 'DELETED', object: configMap('a', '12', { k: 'v2' }) },
  { type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '13' } } },
  { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: 1 (13)', reason: 'Expired', code: 410 } },
];

test('a frame is a big-endian length, then WatchEvent{type, object{raw: envelope}}', () => {
  const ev = events[0];
  const frame = encodeWatchEvent(ev);
  const view = Buffer.from(frame);
  assert.equal(view.readUInt32BE(0), frame.length - 4);
  const envelope = encodeObject(ev.object);
  // type = 1 ("ADDED"), object = 2 holding RawExtension{raw = 1: the envelope}
  const rawLen = envelope.length;
  const expected = Buffer.concat([
    Buffer.from([0x0a, 5]),
    Buffer.from('ADDED'),
    Buffer.from([0x12, ...varint(rawLen + 1 + varint(rawLen).length), 0x0a, ...varint(rawLen)]),
    Buffer.from(envelope),
  ]);
  assert.deepEqual(view.subarray(4), expected);
});

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

test('events read back from any chunking are the events sent (as the JSON stream carries them)', () => {
  const stream = Buffer.concat(events.map((e) => encodeWatchEvent(e)));
  const jsonLines = events.map((e) => JSON.parse(JSON.stringify(e)) as { type: string; object: KubeObject });
  for (const chunkSize of [1, 3, 4, 7, 4096, stream.length]) {
    const reader = new WatchFrameReader();
    const got: { type: string; object: KubeObject }[] = [];
    for (let i = 0; i < stream.length; i += chunkSize) got.push(...reader.push(stream.subarray(i, i + chunkSize)));
    assert.equal(reader.buffered, 0);
    assert.deepEqual(
      got.map((e) => e.type),
      jsonLines.map((e) => e.type),
    );
    // Full objects are identical; the bookmark reads as upstream prints an empty time.
    assert.deepEqual(got.slice(0, 3), jsonLines.slice(0, 3));
    assert.deepEqual(got[3].object.metadata, { resourceVersion: '13', creationTimestamp: null });
    assert.deepEqual(got[4], jsonLines[4]);
  }
});

test('oversized or malformed frames end the stream with a 400', () => {
  const reader = new WatchFrameReader(1024);
  assert.throws(() => reader.push(Uint8Array.of(0, 0, 0x10, 0)), (e: unknown) => e instanceof ApiError && e.code === 400);
  const bad = new WatchFrameReader();
  assert.throws(() => bad.push(Uint8Array.of(0, 0, 0, 2, 0x12, 0x05)), (e: unknown) => e instanceof ApiError && e.code === 400);
  assert.deepEqual(decodeObject(encodeObject(events[4].object)), events[4].object);
});
