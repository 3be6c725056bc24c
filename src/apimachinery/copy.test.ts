import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deepCopy } from './copy.js';

test('deepCopy copies JSON trees, own __proto__ keys included, sharing nothing', () => {
  const src = JSON.parse('{"a":[1,{"b":null}],"__proto__":{"x":1},"n":12345678901234567890,"s":"t","t":true}') as Record<string, unknown>;
  src.big = 9007199254740993n;
  const out = deepCopy(src);
  assert.deepEqual(out, src);
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.ok(Object.hasOwn(out, '__proto__'));
  assert.notEqual(out.a, src.a);
  assert.notEqual((out.a as unknown[])[1], (src.a as unknown[])[1]);
  ((out.a as unknown[])[1] as Record<string, unknown>).b = 2;
  assert.equal(((src.a as unknown[])[1] as Record<string, unknown>).b, null);
});

test('deepCopy falls back to structuredClone for values that are not plain JSON', () => {
  const bytes = new Uint8Array([1, 2, 3]);
  const date = new Date(0);
  const out = deepCopy({ bytes, date, list: [bytes] });
  assert.ok(out.bytes instanceof Uint8Array && out.bytes !== bytes);
  assert.deepEqual([...out.bytes], [1, 2, 3]);
  assert.ok(out.date instanceof Date && out.date.getTime() === 0);
  assert.equal(deepCopy(undefined), undefined);
  assert.equal(deepCopy(7), 7);
  const nullProto = Object.create(null) as Record<string, unknown>;
  nullProto.k = { v: 1 };
  assert.deepEqual({ ...deepCopy(nullProto) }, { k: { v: 1 } });
});
