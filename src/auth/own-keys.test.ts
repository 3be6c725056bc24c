import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendOwn, distinctHeaders } from './own-keys.js';
import { getOwn, setOwn } from '../apimachinery/own.js';

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];

function assertPrototypeIntact(): void {
  assert.equal(({} as Record<string, unknown>)['x'], undefined);
  assert.equal(Object.getPrototypeOf({}), Object.prototype);
}

describe('maps keyed by client input', () => {
  it('keeps __proto__, constructor and prototype as own keys', () => {
    for (const key of PROTO_KEYS) {
      const m: Record<string, string[]> = {};
      appendOwn(m, key, ['x']);
      appendOwn(m, key, ['y']);
      assert.equal(Object.getPrototypeOf(m), Object.prototype, key);
      assert.deepEqual(Object.entries(m), [[key, ['x', 'y']]], key);
      assert.deepEqual(getOwn(m, key), ['x', 'y'], key);
      assert.equal(JSON.stringify(m), `{"${key}":["x","y"]}`);
      const s: Record<string, string> = {};
      setOwn(s, key, 'v');
      assert.deepEqual(Object.keys(s), [key]);
    }
    // Inherited members never read as values.
    assert.equal(getOwn({}, 'constructor'), undefined);
    assert.equal(getOwn({}, '__proto__'), undefined);
    assertPrototypeIntact();
  });

  it('keeps repeated headers apart, by lower-case name', () => {
    const h = distinctHeaders(['X-Remote-Group', 'a', 'x-remote-group', 'b, c', 'Host', 'h', 'Impersonate-Extra-__proto__', 'x', 'odd']);
    assert.deepEqual(h['x-remote-group'], ['a', 'b, c']);
    assert.deepEqual(h['host'], ['h']);
    assert.deepEqual(getOwn(h, 'impersonate-extra-__proto__'), ['x']);
    assert.equal(Object.getPrototypeOf(h), Object.prototype);
    assertPrototypeIntact();
  });
});
