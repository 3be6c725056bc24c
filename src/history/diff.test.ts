import assert from 'node:assert/strict';
import { it } from 'node:test';
import { applyJsonPatch } from '../patch/index.js';
import { jsonPatch } from './diff.js';

it('computes the JSON Patch between two objects', () => {
  const a = { metadata: { name: 'x', labels: { app: 'a', 'x/y~z': '1' } }, data: { k: 'v', gone: '1' }, list: [1, 2, 3] };
  const b = { metadata: { name: 'x', labels: { app: 'b', 'x/y~z': '2' } }, data: { k: 'v', added: { deep: true } }, list: [1, 5] };
  const ops = jsonPatch(a, b);
  assert.deepEqual(ops, [
    { op: 'replace', path: '/metadata/labels/app', value: 'b' },
    { op: 'replace', path: '/metadata/labels/x~1y~0z', value: '2' },
    { op: 'remove', path: '/data/gone' },
    { op: 'add', path: '/data/added', value: { deep: true } },
    { op: 'replace', path: '/list/1', value: 5 },
    { op: 'remove', path: '/list/2' },
  ]);
  assert.deepEqual(jsonPatch(a, structuredClone(a)), []);
});

it('yields patches that turn the old object into the new one', () => {
  const pairs: [unknown, unknown][] = [
    [{ a: [1, 2, 3, 4] }, { a: [9] }],
    [{ a: [] }, { a: [1, { b: 2 }] }],
    [{ a: 1 }, { a: [1] }],
    [{ a: null }, { a: { b: null } }],
    [{ __proto__x: 1, 'a/b': { '~': 1 } }, { 'a/b': { '~': 2, '': 3 } }],
    [{ a: { b: { c: [1, [2, 3]] } } }, { a: { b: { c: [1, [3]] } }, d: 'x' }],
  ];
  for (const [from, to] of pairs) {
    assert.deepEqual(applyJsonPatch(structuredClone(from), jsonPatch(from, to)), to, JSON.stringify([from, to]));
  }
});

it('treats keys such as __proto__ as plain keys', () => {
  const from = JSON.parse('{"__proto__":{"x":1}}') as unknown;
  const to = JSON.parse('{"__proto__":{"x":2}}') as unknown;
  assert.deepEqual(jsonPatch(from, to), [{ op: 'replace', path: '/__proto__/x', value: 2 }]);
});
