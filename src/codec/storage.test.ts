import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeForStorage, jsonCodec } from './storage.js';

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
