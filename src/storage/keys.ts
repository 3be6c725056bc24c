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

/** A sorted set of keys with binary-search range queries, for listing in key order. */
export class SortedKeys {
  private keys: string[] = [];

  get size(): number {
    return this.keys.length;
  }

  add(key: string): void {
    const i = lowerBound(this.keys, key);
    if (this.keys[i] !== key) this.keys.splice(i, 0, key);
  }

  remove(key: string): void {
    const i = lowerBound(this.keys, key);
    if (this.keys[i] === key) this.keys.splice(i, 1);
  }

  clear(): void {
    this.keys = [];
  }

  /**
   * Replaces the set with `keys`, which a store's list returns already in key order: one
   * pass that checks the order, instead of a search per key. Out of order, they are sorted.
   */
  reset(keys: string[]): void {
    for (let i = 1; i < keys.length; i++) {
      if (compareKeys(keys[i - 1] as string, keys[i] as string) >= 0) {
        this.keys = [...new Set(keys)].sort(compareKeys);
        return;
      }
    }
    this.keys = keys;
  }

  /** The half-open index range of keys under `prefix` starting at `startKey`. */
  range(prefix: string, startKey?: string): { from: number; to: number } {
    const start = startKey !== undefined && compareKeys(startKey, prefix) > 0 ? startKey : prefix;
    const end = prefixEnd(prefix);
    const from = lowerBound(this.keys, start);
    const to = end === undefined ? this.keys.length : lowerBound(this.keys, end);
    return { from, to: Math.max(from, to) };
  }

  at(i: number): string {
    return this.keys[i] as string;
  }
}
