// Substring search in time linear in the text. V8's indexOf takes time proportional to text
// times pattern on some inputs (a megabyte of `a` searched for half a megabyte of `a` with one
// `b` in the middle: 48 s), and a rule chooses both; so long searches use Knuth-Morris-Pratt
// over UTF-16 code units (the positions JavaScript strings have).

/** Below this many character comparisons at worst, the engine's own search is used. */
const NATIVE_WORK = 1 << 20;

export class Substring {
  private table?: Int32Array;

  constructor(readonly sub: string) {}

  private native(textLength: number): boolean {
    return textLength * this.sub.length <= NATIVE_WORK;
  }

  /** For each prefix of the pattern, the longest proper prefix that is also its suffix. */
  private failure(): Int32Array {
    if (this.table) return this.table;
    const p = this.sub;
    const t = new Int32Array(p.length);
    for (let i = 1, k = 0; i < p.length; i++) {
      while (k > 0 && p.charCodeAt(i) !== p.charCodeAt(k)) k = t[k - 1];
      if (p.charCodeAt(i) === p.charCodeAt(k)) k++;
      t[i] = k;
    }
    return (this.table = t);
  }

  /**
   * Calls `found(start)` for each match starting in [from, s.length - m] in order, until it
   * returns true; returns that start, or -1.
   */
  private scan(s: string, from: number, found: (start: number) => boolean): number {
    const p = this.sub;
    const m = p.length;
    const t = this.failure();
    for (let i = from, k = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      while (k > 0 && c !== p.charCodeAt(k)) k = t[k - 1];
      if (c === p.charCodeAt(k)) k++;
      if (k === m) {
        if (found(i - m + 1)) return i - m + 1;
        k = t[k - 1];
      }
    }
    return -1;
  }

  /** The first match at or after `from`, as String.prototype.indexOf. */
  indexOf(s: string, from = 0): number {
    if (this.sub.length === 0 || this.native(s.length - from)) return s.indexOf(this.sub, from);
    return this.scan(s, Math.max(0, from), () => true);
  }

  /** The last match starting at or before `from`, as String.prototype.lastIndexOf. */
  lastIndexOf(s: string, from = s.length): number {
    if (this.sub.length === 0 || this.native(s.length)) return s.lastIndexOf(this.sub, from);
    let last = -1;
    this.scan(s, 0, (start) => {
      if (start > from) return true;
      last = start;
      return false;
    });
    return last;
  }

  includes(s: string): boolean {
    return this.indexOf(s) >= 0;
  }
}
