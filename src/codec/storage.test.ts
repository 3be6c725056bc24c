import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeForStorage, jsonCodec, jsonSizeBound } from './storage.js';

test('stored bytes leave out the resource version and do not depend on key order', () => {
  const created = { data: { a: 'b' }, metadata: { name: 'x', resourceVersion: '7' }, apiVersion: 'v1', kind: 'ConfigMap' };
  const readBack = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x', resourceVersion: '9' }, data: { a: 'b' } };
  const a = encodeForStorage(jsonCodec, created);
  assert.deepEqual(a, encodeForStorage(jsonCodec, readBack));
  assert.equal(new TextDecoder().decode(a), '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x"},"data":{"a":"b"}}');
  // The caller's object is left as it was.
  assert.equal(created.metadata.resourceVersion, '7');
  // A real change still changes the bytes.
  assert.notDeepEqual(a, encodeForStorage(jsonCodec, { ...readBack, data: { a: 'c' } }));
});

test('the JSON size bound is never below the encoded size', () => {
  const values: unknown[] = [
    { kind: 'ConfigMap', metadata: { name: 'x', labels: { a: '' } }, data: { k: 'v' } },
    { s: '\u0000\u001f"\\\n', lone: '\ud800', pair: '\ud83d\ude00', accents: 'éàü', cjk: '漢字' },
    { n: [0, -1, 1.5, -2.2250738585072014e-308, 1e21, Number.MAX_VALUE, Number.MIN_VALUE, NaN] },
    { big: 9223372036854775807n, neg: -9223372036854775808n, flags: [true, false, null], gone: undefined, holes: [undefined] },
    { deep: { a: { b: { c: [[[{}]]] } } }, empty: [], none: {} },
  ];
  for (const v of values) {
    const encoded = jsonCodec.encode(v as never).byteLength;
    assert.ok(jsonSizeBound(v, Infinity) >= encoded, `${jsonSizeBound(v, Infinity)} < ${encoded} for ${JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? String(x) : x))}`);
  }
});

test('the JSON size bound gives up on what only the encoder knows, and stops past the limit', () => {
  assert.equal(jsonSizeBound({ when: new Date(0) }, Infinity), Infinity);
  let deep: unknown = {};
  for (let i = 0; i < 1000; i++) deep = { d: deep };
  assert.equal(jsonSizeBound(deep, Infinity), Infinity);
  const big = { items: Array.from({ length: 100_000 }, () => 'x'.repeat(100)) };
  const bound = jsonSizeBound(big, 1000);
  assert.ok(bound > 1000 && bound < 10_000, String(bound));
});
