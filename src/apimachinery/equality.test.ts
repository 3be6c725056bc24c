import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deepEqual } from './equality.js';

test('deepEqual compares JSON values: key order and undefined members do not matter, bigints by value', () => {
  assert.equal(deepEqual({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }), true);
  assert.equal(deepEqual({ a: 1, b: undefined }, { a: 1 }), true);
  assert.equal(deepEqual({ a: 1 }, { a: 1, b: undefined }), true);
  assert.equal(deepEqual({ a: 1 }, { b: 1 }), false);
  assert.equal(deepEqual([1, 2], [2, 1]), false);
  assert.equal(deepEqual([1], { 0: 1 }), false);
  assert.equal(deepEqual(null, {}), false);
  assert.equal(deepEqual(2n ** 63n - 1n, 2n ** 63n - 1n), true);
  assert.equal(deepEqual({ n: 9007199254740993n }, { n: 9007199254740993n }), true);
  assert.equal(deepEqual(1n, 1), false);
});

test('deepEqual reads own members only', () => {
  // An absent `constructor` is not the inherited function.
  assert.equal(deepEqual({ constructor: undefined, a: 1 }, { a: 1 }), true);
  assert.equal(deepEqual(JSON.parse('{"constructor":1}'), { toString: 1 }), false);
  assert.equal(deepEqual(JSON.parse('{"__proto__":{"x":1}}'), JSON.parse('{"__proto__":{"x":1}}')), true);
});
