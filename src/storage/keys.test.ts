import assert from 'node:assert/strict';
import { it } from 'node:test';
import { SortedKeys, compareKeys, prefixEnd } from './keys.js';

const alphabet = ['a', 'b', '/', '\0', 'é', '\uffee', '\ue000', '😀', '𝄞', 'z'];
function randomKey(rand: () => number): string {
  let s = '';
  const n = Math.floor(rand() * 5);
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(rand() * alphabet.length)];
  return s;
}

// A small deterministic generator, so that a failure can be reproduced.
function lcg(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

it('orders keys as their UTF-8 bytes (etcd and SQLite order)', () => {
  const rand = lcg(42);
  for (let i = 0; i < 5000; i++) {
    const a = randomKey(rand);
    const b = randomKey(rand);
    const bytes = Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
    assert.equal(Math.sign(compareKeys(a, b)), bytes, `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  }
});

it('bounds a prefix range from above', () => {
  assert.equal(prefixEnd('/registry/pods/'), '/registry/pods0');
  assert.equal(prefixEnd(''), undefined);
  assert.equal(prefixEnd('a\u{10ffff}'), 'b');
  const rand = lcg(7);
  for (let i = 0; i < 2000; i++) {
    const prefix = randomKey(rand);
    const key = randomKey(rand);
    const end = prefixEnd(prefix);
    const inRange = compareKeys(key, prefix) >= 0 && (end === undefined || compareKeys(key, end) < 0);
    assert.equal(inRange, key.startsWith(prefix), `${JSON.stringify(key)} under ${JSON.stringify(prefix)}`);
  }
});

it('keeps a sorted set with prefix ranges', () => {
  const keys = new SortedKeys();
  for (const k of ['/b/2', '/a/1', '/b/1', '/c', '/b/1', '/ab']) keys.add(k);
  assert.equal(keys.size, 5);
  const { from, to } = keys.range('/b/');
  assert.deepEqual([keys.at(from), keys.at(to - 1), to - from], ['/b/1', '/b/2', 2]);
  const after = keys.range('/b/', '/b/1\0');
  assert.equal(after.to - after.from, 1);
  keys.remove('/b/1');
  keys.remove('/nope');
  assert.equal(keys.size, 4);
});

it('takes a whole set at once, in key order or not', () => {
  const sorted = new SortedKeys();
  sorted.reset(['/a/1', '/ab', '/b/1', '/b/2', '/c']);
  const added = new SortedKeys();
  for (const k of ['/b/2', '/a/1', '/b/1', '/c', '/b/1', '/ab']) added.add(k);
  const unsorted = new SortedKeys();
  unsorted.reset(['/b/2', '/a/1', '/b/1', '/c', '/b/1', '/ab']);
  for (const keys of [sorted, unsorted]) {
    assert.equal(keys.size, added.size);
    for (let i = 0; i < added.size; i++) assert.equal(keys.at(i), added.at(i));
  }
  // Key order is UTF-8 byte order, not UTF-16's: a surrogate pair sorts after U+FFFD.
  unsorted.reset(['/\u{1F600}', '/\uFFFD']);
  assert.deepEqual([unsorted.at(0), unsorted.at(1)], ['/\uFFFD', '/\u{1F600}']);
  unsorted.add('/b');
  assert.equal(unsorted.at(0), '/b');
});

it('keeps its order, ranges and size across chunk splits and removals, as a sorted array does', () => {
  const rand = lcg(7);
  const keys = new SortedKeys();
  const model = new Set<string>();
  const name = (): string => `/r/${String(Math.floor(rand() * 5000)).padStart(4, '0')}`;
  // Enough keys to split chunks many times, then removals that empty some of them.
  for (let i = 0; i < 6000; i++) {
    const k = name();
    keys.add(k);
    model.add(k);
  }
  for (let i = 0; i < 4000; i++) {
    const k = name();
    keys.remove(k);
    model.delete(k);
  }
  const sorted = [...model].sort(compareKeys);
  assert.equal(keys.size, sorted.length);
  assert.deepEqual(keys.slice(0, keys.size), sorted);
  for (const [prefix, start] of [['/r/1', undefined], ['/r/', '/r/2500'], ['/r/49', '/r/4950\0'], ['/s/', undefined]] as const) {
    const { from, to } = keys.range(prefix, start);
    const expected = sorted.filter((k) => k.startsWith(prefix) && (start === undefined || compareKeys(k, start) >= 0));
    assert.deepEqual(keys.slice(from, to), expected, `${prefix} from ${String(start)}`);
  }
  assert.equal(keys.at(3), sorted[3]);
  assert.equal(keys.at(keys.size), undefined);
});
