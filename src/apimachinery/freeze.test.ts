import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deepFreeze } from './freeze.js';
import { deepCopy } from './copy.js';

test('deepFreeze freezes every level, own __proto__ keys included, and returns the same value', () => {
  const src = JSON.parse('{"a":[1,{"b":null}],"__proto__":{"x":1},"m":{"n":{"o":"p"}}}') as Record<string, unknown>;
  const out = deepFreeze(src);
  assert.equal(out, src);
  assert.ok(Object.isFrozen(src));
  assert.ok(Object.isFrozen(src.a));
  assert.ok(Object.isFrozen((src.a as unknown[])[1]));
  assert.ok(Object.isFrozen(Object.getOwnPropertyDescriptor(src, '__proto__')!.value));
  assert.ok(Object.isFrozen((src.m as Record<string, unknown>).n));
  assert.throws(() => {
    ((src.m as Record<string, Record<string, unknown>>).n!).o = 'q';
  }, TypeError);
  assert.throws(() => (src.a as unknown[]).push(2), TypeError);
  // A copy is the way to change one: it is not frozen.
  const copy = deepCopy(src);
  (copy.m as Record<string, unknown>).n = 1;
  assert.equal(copy.m && (copy.m as Record<string, unknown>).n, 1);
});

test('deepFreeze leaves scalars and byte arrays alone', () => {
  assert.equal(deepFreeze(3), 3);
  assert.equal(deepFreeze(null), null);
  const holder = deepFreeze({ bytes: new Uint8Array([1, 2]) });
  assert.ok(Object.isFrozen(holder));
  holder.bytes[0] = 9;
  assert.equal(holder.bytes[0], 9);
});
