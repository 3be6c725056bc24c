import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonStreamSplitter } from './json-stream.js';

test('documents split across arbitrary chunk boundaries come out whole', () => {
  const docs = [
    { type: 'ADDED', object: { metadata: { name: 'a}{"' } } },
    { type: 'MODIFIED', object: { data: { k: 'v\\"}' }, list: [1, { x: 'é' }] } },
  ];
  const bytes = Buffer.from(docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
  for (const size of [1, 2, 3, 7, bytes.length]) {
    const splitter = new JsonStreamSplitter();
    const out: unknown[] = [];
    for (let i = 0; i < bytes.length; i += size) out.push(...splitter.push(bytes.subarray(i, i + size)));
    assert.deepEqual(out, docs, `chunk size ${size}`);
  }
});

test('documents without separators and garbage between them', () => {
  const splitter = new JsonStreamSplitter();
  assert.deepEqual(splitter.push('{"a":1}{"b":2}'), [{ a: 1 }, { b: 2 }]);
  assert.throws(() => splitter.push('nope {"c":3}'), SyntaxError);
});
