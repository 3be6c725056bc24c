import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Substring } from './search.js';

it('finds what String.prototype.indexOf and lastIndexOf find, on texts long enough for its own search', () => {
  let state = 7;
  const rnd = (): number => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const word = (n: number): string => Array.from({ length: n }, () => (rnd() < 0.7 ? 'a' : rnd() < 0.5 ? 'b' : '😀')).join('');
  for (let k = 0; k < 200; k++) {
    const text = word(2_000 + Math.floor(rnd() * 2_000));
    const sub = rnd() < 0.5 ? word(600 + Math.floor(rnd() * 20)) : text.slice(Math.floor(rnd() * 1_000), 1_000 + Math.floor(rnd() * 1_000));
    const from = Math.floor(rnd() * text.length);
    const s = new Substring(sub);
    assert.equal(s.indexOf(text), text.indexOf(sub));
    assert.equal(s.indexOf(text, from), text.indexOf(sub, from));
    assert.equal(s.lastIndexOf(text), text.lastIndexOf(sub));
    assert.equal(s.lastIndexOf(text, from), text.lastIndexOf(sub, from));
  }
  assert.equal(new Substring('').indexOf('abc', 1), 1);
  assert.equal(new Substring('').lastIndexOf('abc'), 3);
});

it('takes time linear in the text where the engine takes text times pattern', () => {
  const half = 'a'.repeat(250_000);
  const started = performance.now();
  assert.equal(new Substring(`${half}b${half}`).indexOf('a'.repeat(1_000_000)), -1);
  assert.equal(new Substring(`${half}b${half}`).lastIndexOf('a'.repeat(1_000_000)), -1);
  assert.ok(performance.now() - started < 500);
});
