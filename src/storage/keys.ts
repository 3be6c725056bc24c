// Key order is byte order of the UTF-8 encoding (etcd's order, and SQLite's BINARY collation).
// JavaScript compares UTF-16 code units, which differs only when one side is a surrogate
// (a code point above U+FFFF) and the other a code unit in U+E000..U+FFFF.

export function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) return codePointRank(x) - codePointRank(y);
      return x - y;
    }
  }
  return a.length - b.length;
}

// Surrogates encode code points above every BMP unit, so they rank after U+E000..U+FFFF.
function codePointRank(unit: number): number {
  return unit >= 0xd800 && unit <= 0xdfff ? unit + 0x10000 : unit;
}

/**
 * The smallest key greater than every key starting with `prefix`, or undefined when no such
 * bound exists (empty prefix: every key matches).
 */
export function prefixEnd(prefix: string): string | undefined {
  // The usual key ends in a character below the surrogates whose successor is one too: one
  // string operation (every list and every watch of the cache asks this).
  const lastUnit = prefix.charCodeAt(prefix.length - 1);
  if (lastUnit < 0xd7ff) return prefix.slice(0, -1) + String.fromCharCode(lastUnit + 1);
  const cps = Array.from(prefix);
  while (cps.length > 0) {
    const last = cps.pop() as string;
    let cp = (last.codePointAt(0) as number) + 1;
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xe000;
    if (cp <= 0x10ffff) return cps.join('') + String.fromCodePoint(cp);
  }
  return undefined;
}

/** Index of the first element of the sorted `keys` not less than `key`. */
function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareKeys(keys[mid] as string, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Keys per chunk of a SortedKeys: a chunk splits in two when it holds twice as many. */
const CHUNK = 512;

/**
 * A sorted set of keys with range queries, for listing in key order. The keys sit in
 * chunks of a few hundred, so that adding or removing one moves a chunk's worth of
 * entries, not the whole set's (a store of 100,000 keys takes a create in constant time).
 */
export class SortedKeys {
  private chunks: string[][] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The first chunk whose last key is not less than `key` (the number of chunks when none is). */
  private chunkFor(key: string): number {
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const chunk = this.chunks[mid] as string[];
      if (compareKeys(chunk[chunk.length - 1] as string, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  add(key: string): void {
    if (this.chunks.length === 0) {
      this.chunks.push([key]);
      this.count = 1;
      return;
    }
    // A key above every other goes at the end of the last chunk.
    const c = Math.min(this.chunkFor(key), this.chunks.length - 1);
    const chunk = this.chunks[c] as string[];
    const i = lowerBound(chunk, key);
    if (chunk[i] === key) return;
    chunk.splice(i, 0, key);
    this.count++;
    if (chunk.length >= 2 * CHUNK) this.chunks.splice(c, 1, chunk.slice(0, CHUNK), chunk.slice(CHUNK));
  }

  remove(key: string): void {
    const c = this.chunkFor(key);
    const chunk = this.chunks[c];
    if (chunk === undefined) return;
    const i = lowerBound(chunk, key);
    if (chunk[i] !== key) return;
    chunk.splice(i, 1);
    this.count--;
    if (chunk.length === 0) this.chunks.splice(c, 1);
  }

  clear(): void {
    this.chunks = [];
    this.count = 0;
  }

  /**
   * Replaces the set with `keys`, which a store's list returns already in key order: one
   * pass that checks the order, instead of a search per key. Out of order, they are sorted.
   */
  reset(keys: string[]): void {
    let sorted = keys;
    for (let i = 1; i < keys.length; i++) {
      if (compareKeys(keys[i - 1] as string, keys[i] as string) >= 0) {
        sorted = [...new Set(keys)].sort(compareKeys);
        break;
      }
    }
    this.chunks = [];
    for (let i = 0; i < sorted.length; i += CHUNK) this.chunks.push(sorted.slice(i, i + CHUNK));
    this.count = sorted.length;
  }

  /** How many keys are less than `key`. */
  private rank(key: string): number {
    const c = this.chunkFor(key);
    let n = 0;
    for (let i = 0; i < c; i++) n += (this.chunks[i] as string[]).length;
    return c < this.chunks.length ? n + lowerBound(this.chunks[c] as string[], key) : n;
  }

  /** The half-open index range of keys under `prefix` starting at `startKey`. */
  range(prefix: string, startKey?: string): { from: number; to: number } {
    const start = startKey !== undefined && compareKeys(startKey, prefix) > 0 ? startKey : prefix;
    const end = prefixEnd(prefix);
    const from = this.rank(start);
    const to = end === undefined ? this.count : this.rank(end);
    return { from, to: Math.max(from, to) };
  }

  /** The keys at indexes `from` (inclusive) to `to` (exclusive), in order. */
  slice(from: number, to: number): string[] {
    const out: string[] = [];
    let base = 0;
    for (const chunk of this.chunks) {
      if (base >= to) break;
      const next = base + chunk.length;
      if (next > from) {
        for (let i = Math.max(0, from - base); i < chunk.length && base + i < to; i++) out.push(chunk[i] as string);
      }
      base = next;
    }
    return out;
  }

  at(i: number): string | undefined {
    return this.slice(i, i + 1)[0];
  }
}
