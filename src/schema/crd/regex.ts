// Regular expressions with Go's RE2 syntax and semantics, for schema `pattern`s and CEL's
// regex functions. A pattern is first parsed with Go's rules (refused in its parser's words,
// Go 1.20 as Kubernetes 1.27 was built with: no `(?<name>`, no lookaround, no backreference),
// then compiled by re2js, a JavaScript port of RE2 that never backtracks. Its worst case is
// still the text's length times the program's size (a `[a-z]{999}` is a thousand states), so
// every match first checks that product against a bound: a JavaScript RegExp, or an
// unbounded automaton, would let one hostile pattern or value stall every request.
import { createRequire } from 'node:module';
import type * as Re2jsModule from 're2js';

/** A compiled Go regular expression. Positions are UTF-16 offsets into the text. */
export interface GoRegexp {
  /** Instructions of the program: the most work one character of text can take. */
  readonly programSize: number;
  /** Whether the pattern matches anywhere in `s`. */
  test(s: string): boolean;
  /**
   * Go's FindAllString: leftmost-first matches, at most `max` (all when negative); an empty
   * match right after the previous match is skipped. `spend(work)` is called before each
   * search with its worst-case work and may throw to stop.
   */
  findAll(s: string, max: number, spend: (work: number) => void): string[];
}

export type CompiledPattern = { ok: true; regexp: GoRegexp; test: (s: string) => boolean } | { ok: false; error: string };

/**
 * The worst-case work of one search of `length` code units with a program of `size`
 * instructions: every instruction may be live at every position.
 */
export function matchWork(length: number, size: number): number {
  return (length + 1) * size;
}

/**
 * The most work one match may take. re2js spends up to about 100 ns per unit on its slowest
 * paths (an automaton whose states keep changing, on short texts), so this keeps one match
 * around 100 ms at worst; on ordinary patterns it takes a few milliseconds.
 */
export const MATCH_WORK_LIMIT = 1_000_000;

/** The error of a match over MATCH_WORK_LIMIT. */
export class MatchTooExpensive extends Error {
  constructor(readonly work: number) {
    super(`matching would take up to ${work} steps, more than ${MATCH_WORK_LIMIT}`);
  }
}

type Pred = (cp: number) => boolean;
type AssertKind = 'bol' | 'eol' | 'bot' | 'eot' | 'wb' | 'nwb';
type Node =
  | { t: 'char'; pred: Pred }
  | { t: 'cat'; list: Node[] }
  | { t: 'alt'; list: Node[] }
  | { t: 'rep'; node: Node; min: number; max: number }
  | { t: 'empty' }
  | { t: 'assert'; kind: AssertKind };

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
}

const MAX_REPEAT = 1000;
const MAX_NESTING = 1000;
const CACHE_LIMIT = 512;
const cache = new Map<string, CompiledPattern>();

class GoRegexpError extends Error {
  constructor(code: string, expr: string) {
    super(`error parsing regexp: ${code}: \`${expr}\``);
  }
}

const isWordChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 12 || c === 13;
const isAlnum = (c: number): boolean => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

function rangePred(lo: number, hi: number): Pred {
  return (c) => c >= lo && c <= hi;
}

const POSIX: Record<string, Pred> = {
  alnum: isAlnum,
  alpha: (c) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122),
  ascii: rangePred(0, 0x7f),
  blank: (c) => c === 9 || c === 32,
  cntrl: (c) => c <= 0x1f || c === 0x7f,
  digit: isDigit,
  graph: rangePred(0x21, 0x7e),
  lower: rangePred(97, 122),
  print: rangePred(0x20, 0x7e),
  punct: (c) => (c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) || (c >= 0x7b && c <= 0x7e),
  space: (c) => c === 9 || c === 10 || c === 11 || c === 12 || c === 13 || c === 32,
  upper: rangePred(65, 90),
  word: isWordChar,
  xdigit: (c) => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102),
};

function unicodeClass(name: string): Pred | undefined {
  for (const src of [`^\\p{${name}}$`, `^\\p{Script=${name}}$`]) {
    try {
      const re = new RegExp(src, 'u');
      return (c) => re.test(String.fromCodePoint(c));
    } catch {
      // try the next spelling
    }
  }
  return undefined;
}

/** The other cases of a code point (simple case folding, as far as JavaScript knows it). */
function caseVariants(c: number): number[] {
  const s = String.fromCodePoint(c);
  const out: number[] = [];
  for (const v of [s.toLowerCase(), s.toUpperCase()]) {
    const cp = v.codePointAt(0) ?? c;
    if (v.length === String.fromCodePoint(cp).length && cp !== c && !out.includes(cp)) out.push(cp);
  }
  return out;
}

function folded(pred: Pred): Pred {
  return (c) => pred(c) || caseVariants(c).some(pred);
}

class Parser {
  private i = 0;
  private depth = 0;

  constructor(private readonly p: string) {}

  parse(): Node {
    const node = this.alternation({ i: false, m: false, s: false });
    if (this.i < this.p.length) throw new GoRegexpError('unexpected )', this.p);
    return node;
  }

  private alternation(flags: Flags): Node {
    const branches: Node[] = [this.sequence(flags)];
    while (this.p[this.i] === '|') {
      this.i++;
      branches.push(this.sequence(flags));
    }
    return branches.length === 1 ? branches[0] : { t: 'alt', list: branches };
  }

  private sequence(flags: Flags): Node {
    const items: Node[] = [];
    let lastRepeatStart = -1;
    while (this.i < this.p.length) {
      const c = this.p[this.i];
      if (c === '|' || c === ')') break;
      if (c === '*' || c === '+' || c === '?' || c === '{') {
        const start = this.i;
        let min: number;
        let max: number;
        if (c === '{') {
          const m = /^\{(\d+)(,(\d*))?\}/.exec(this.p.slice(this.i, this.i + 24));
          if (!m) {
            // Not a repeat: a literal brace, as in Go.
            items.push(this.literal(c.charCodeAt(0), flags));
            this.i++;
            lastRepeatStart = -1;
            continue;
          }
          min = Number(m[1]);
          max = m[3] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
          this.i += m[0].length;
          if (min > MAX_REPEAT || max > MAX_REPEAT || (max >= 0 && min > max)) throw new GoRegexpError('invalid repeat count', this.p.slice(start, this.i));
        } else {
          this.i++;
          [min, max] = c === '*' ? [0, -1] : c === '+' ? [1, -1] : [0, 1];
        }
        if (this.p[this.i] === '?') this.i++;
        if (lastRepeatStart >= 0) throw new GoRegexpError('invalid nested repetition operator', this.p.slice(lastRepeatStart, this.i));
        const last = items.pop();
        if (!last) throw new GoRegexpError('missing argument to repetition operator', this.p.slice(start, this.i));
        items.push({ t: 'rep', node: last, min, max });
        lastRepeatStart = start;
        continue;
      }
      lastRepeatStart = -1;
      if (c === '(') {
        const group = this.group(flags);
        if (group) items.push(group);
        continue;
      }
      if (c === '[') {
        items.push({ t: 'char', pred: this.charClass(flags) });
        continue;
      }
      if (c === '\\') {
        items.push(this.escapeOutside(flags));
        continue;
      }
      if (c === '.') {
        this.i++;
        items.push({ t: 'char', pred: flags.s ? () => true : (x) => x !== 10 });
        continue;
      }
      if (c === '^' || c === '$') {
        this.i++;
        items.push({ t: 'assert', kind: c === '^' ? (flags.m ? 'bol' : 'bot') : flags.m ? 'eol' : 'eot' });
        continue;
      }
      const cp = this.p.codePointAt(this.i) ?? 0;
      this.i += cp > 0xffff ? 2 : 1;
      items.push(this.literal(cp, flags));
    }
    return items.length === 0 ? { t: 'empty' } : items.length === 1 ? items[0] : { t: 'cat', list: items };
  }

  private literal(cp: number, flags: Flags): Node {
    const variants = flags.i ? caseVariants(cp) : [];
    return { t: 'char', pred: variants.length === 0 ? (c) => c === cp : (c) => c === cp || variants.includes(c) };
  }

  /** A group, or null for a flag group `(?i)` that changes the flags of the rest of this group. */
  private group(flags: Flags): Node | null {
    const start = this.i;
    this.i++;
    let inner = flags;
    if (this.p[this.i] === '?') {
      if (this.p.startsWith('?P<', this.i)) {
        const end = this.p.indexOf('>', this.i);
        const name = end < 0 ? '' : this.p.slice(this.i + 3, end);
        if (end < 0 || !/^[A-Za-z0-9_]+$/.test(name)) throw new GoRegexpError('invalid named capture', this.p.slice(start, end < 0 ? this.p.length : end + 1));
        this.i = end + 1;
      } else {
        // Flags: (?i) (?-s) (?im:re).
        let j = this.i + 1;
        const next: Flags = { ...flags };
        let negate = false;
        let sawFlag = false;
        for (;;) {
          const ch = this.p[j];
          if (ch === undefined) throw new GoRegexpError('missing closing )', this.p);
          j++;
          if (ch === 'i' || ch === 'm' || ch === 's' || ch === 'U') {
            if (ch !== 'U') next[ch] = !negate;
            sawFlag = true;
          } else if (ch === '-' && !negate) {
            negate = true;
            sawFlag = false;
          } else if ((ch === ':' || ch === ')') && !(negate && !sawFlag)) {
            if (ch === ')') {
              Object.assign(flags, next);
              this.i = j;
              return null;
            }
            inner = next;
            this.i = j;
            break;
          } else {
            throw new GoRegexpError('invalid or unsupported Perl syntax', this.p.slice(start, j));
          }
        }
      }
    }
    if (++this.depth > MAX_NESTING) throw new GoRegexpError('expression nests too deeply', this.p);
    const node = this.alternation(inner === flags ? { ...flags } : inner);
    this.depth--;
    if (this.p[this.i] !== ')') throw new GoRegexpError('missing closing )', this.p);
    this.i++;
    return node;
  }

  private escapeOutside(flags: Flags): Node {
    const start = this.i;
    const c = this.p[this.i + 1];
    switch (c) {
      case 'b':
      case 'B':
      case 'A':
      case 'z':
        this.i += 2;
        return { t: 'assert', kind: c === 'b' ? 'wb' : c === 'B' ? 'nwb' : c === 'A' ? 'bot' : 'eot' };
      case 'Q': {
        const end = this.p.indexOf('\\E', this.i + 2);
        const lit = end < 0 ? this.p.slice(this.i + 2) : this.p.slice(this.i + 2, end);
        this.i = end < 0 ? this.p.length : end + 2;
        const list = [...lit].map((ch) => this.literal(ch.codePointAt(0) ?? 0, flags));
        return list.length === 0 ? { t: 'empty' } : { t: 'cat', list };
      }
      default: {
        const pred = this.escape(start, false);
        return { t: 'char', pred: flags.i ? folded(pred) : pred };
      }
    }
  }

  /** One escape as a set of code points. */
  private escape(start: number, inClass: boolean): Pred {
    this.i++;
    if (this.i >= this.p.length) throw new GoRegexpError('trailing backslash at end of expression', '');
    const c = this.p[this.i++];
    const lit = (cp: number): Pred => (x) => x === cp;
    switch (c) {
      case 'a': return lit(7);
      case 'f': return lit(12);
      case 't': return lit(9);
      case 'n': return lit(10);
      case 'r': return lit(13);
      case 'v': return lit(11);
      case 'd': return isDigit;
      case 'D': return (x) => !isDigit(x);
      case 's': return isSpace;
      case 'S': return (x) => !isSpace(x);
      case 'w': return isWordChar;
      case 'W': return (x) => !isWordChar(x);
      case 'p':
      case 'P': {
        let name: string;
        if (this.p[this.i] === '{') {
          const end = this.p.indexOf('}', this.i);
          if (end < 0) throw new GoRegexpError('invalid character class range', this.p.slice(start));
          name = this.p.slice(this.i + 1, end);
          this.i = end + 1;
        } else {
          if (this.i >= this.p.length) throw new GoRegexpError('invalid character class range', this.p.slice(start));
          const cp = this.p.codePointAt(this.i) ?? 0;
          name = String.fromCodePoint(cp);
          this.i += name.length;
        }
        let negate = c === 'P';
        if (name.startsWith('^')) {
          negate = !negate;
          name = name.slice(1);
        }
        const pred = /^[A-Za-z_]+$/.test(name) ? unicodeClass(name) : undefined;
        if (!pred) throw new GoRegexpError('invalid character class range', this.p.slice(start, this.i));
        return negate ? (x) => !pred(x) : pred;
      }
      case 'x': {
        if (this.p[this.i] === '{') {
          const end = this.p.indexOf('}', this.i);
          const digits = end < 0 ? '' : this.p.slice(this.i + 1, end);
          if (!/^[0-9A-Fa-f]+$/.test(digits) || parseInt(digits, 16) > 0x10ffff) {
            throw new GoRegexpError('invalid escape sequence', this.p.slice(start, end < 0 ? this.p.length : end + 1));
          }
          this.i = end + 1;
          return lit(parseInt(digits, 16));
        }
        const digits = this.p.slice(this.i, this.i + 2);
        if (!/^[0-9A-Fa-f]{2}$/.test(digits)) throw new GoRegexpError('invalid escape sequence', this.p.slice(start, this.i + (/^[0-9A-Fa-f]/.test(digits) ? 1 : 0)));
        this.i += 2;
        return lit(parseInt(digits, 16));
      }
      default: {
        const cp = c.charCodeAt(0);
        if (c >= '0' && c <= '7') {
          // A lone non-zero digit would be a backreference, which RE2 does not have.
          const next = this.p[this.i];
          if (c !== '0' && !(next >= '0' && next <= '7')) throw new GoRegexpError('invalid escape sequence', this.p.slice(start, this.i));
          let value = cp - 48;
          for (let k = 1; k < 3 && this.p[this.i] >= '0' && this.p[this.i] <= '7'; k++) value = value * 8 + this.p.charCodeAt(this.i++) - 48;
          return lit(value);
        }
        if (cp < 0x80 && !isAlnum(cp)) return lit(cp);
        void inClass;
        throw new GoRegexpError('invalid escape sequence', this.p.slice(start, this.i + (cp >= 0xd800 && cp < 0xdc00 ? 1 : 0)));
      }
    }
  }

  private charClass(flags: Flags): Pred {
    const start = this.i;
    this.i++;
    let negate = false;
    if (this.p[this.i] === '^') {
      negate = true;
      this.i++;
    }
    const parts: Pred[] = [];
    let first = true;
    while (this.i < this.p.length && (this.p[this.i] !== ']' || first)) {
      first = false;
      if (this.p.startsWith('[:', this.i)) {
        const end = this.p.indexOf(':]', this.i + 2);
        if (end >= 0) {
          let name = this.p.slice(this.i + 2, end);
          const neg = name.startsWith('^');
          if (neg) name = name.slice(1);
          const pred = Object.hasOwn(POSIX, name) ? POSIX[name] : undefined;
          if (!pred) throw new GoRegexpError('invalid character class range', this.p.slice(this.i, end + 2));
          parts.push(neg ? (x) => !pred(x) : pred);
          this.i = end + 2;
          continue;
        }
      }
      const itemStart = this.i;
      const lo = this.classChar(parts);
      if (lo === undefined) continue;
      if (this.p[this.i] === '-' && this.i + 1 < this.p.length && this.p[this.i + 1] !== ']') {
        this.i++;
        const hi = this.classChar(parts);
        if (hi === undefined || hi < lo) throw new GoRegexpError('invalid character class range', this.p.slice(itemStart, this.i));
        parts.push(rangePred(lo, hi));
      } else {
        parts.push((x) => x === lo);
      }
    }
    if (this.i >= this.p.length) throw new GoRegexpError('missing closing ]', this.p.slice(start));
    this.i++;
    const base: Pred = (x) => parts.some((f) => f(x));
    const cased = flags.i ? folded(base) : base;
    return negate ? (x) => !cased(x) : cased;
  }

  /** One class member: a code point, or (pushed into `parts`) a Perl or Unicode class. */
  private classChar(parts: Pred[]): number | undefined {
    if (this.p[this.i] === '\\') {
      const start = this.i;
      const c = this.p[this.i + 1];
      if (c === 'd' || c === 'D' || c === 's' || c === 'S' || c === 'w' || c === 'W' || c === 'p' || c === 'P') {
        parts.push(this.escape(start, true));
        return undefined;
      }
      if (c === 'b' || c === 'B' || c === 'A' || c === 'z' || c === 'Q') throw new GoRegexpError('invalid escape sequence', this.p.slice(start, start + 2));
      const pred = this.escape(start, true);
      // A single-character escape: find its code point.
      for (const probe of [7, 9, 10, 11, 12, 13]) if (pred(probe)) return probe;
      const text = this.p.slice(start, this.i);
      if (/^\\x/.test(text)) return parseInt(text.replace(/^\\x\{?|\}$/g, ''), 16);
      if (/^\\[0-7]/.test(text)) return parseInt(text.slice(1), 8);
      return text.codePointAt(1) ?? 0;
    }
    const cp = this.p.codePointAt(this.i) ?? 0;
    this.i += cp > 0xffff ? 2 : 1;
    return cp;
  }
}


// ---------------------------------------------------------------------------------------
// Matching

// Loaded on the first pattern compiled (validation is synchronous, hence require): most
// servers never compile one, and the engine is a large module.
const load = createRequire(import.meta.url);
let re2js: typeof Re2jsModule | undefined;

function engine(): typeof Re2jsModule {
  return (re2js ??= load('re2js') as typeof Re2jsModule);
}

function wrap(re: Re2jsModule.RE2JS): GoRegexp {
  const size = re.programSize();
  return {
    programSize: size,
    test(s) {
      const work = matchWork(s.length, size);
      if (work > MATCH_WORK_LIMIT) throw new MatchTooExpensive(work);
      return re.test(s);
    },
    findAll(s, max, spend) {
      const out: string[] = [];
      const m = re.matcher(s);
      let pos = 0;
      let prevEnd = -1;
      while ((max < 0 || out.length < max) && pos <= s.length) {
        // A search from `pos` may run to the end of the text, whatever it finds.
        spend(matchWork(s.length - pos, size));
        if (!m.find(pos)) break;
        const start = m.start();
        const end = m.end();
        let accept = true;
        if (end === pos) {
          // An empty match here: skipped right after a match; the next search starts one
          // code point on.
          if (start === prevEnd) accept = false;
          const cp = s.codePointAt(pos);
          pos += cp !== undefined && cp > 0xffff ? 2 : 1;
        } else {
          pos = end;
        }
        prevEnd = end;
        if (accept) out.push(s.slice(start, end));
      }
      return out;
    },
  };
}

/** re2js words errors as Go does, except that Go quotes the whole pattern of a too large one. */
function goMessage(message: string, pattern: string): string {
  return message === 'error parsing regexp: expression too large' ? `${message}: \`${pattern}\`` : message;
}

/**
 * The pattern compiled with Go's semantics, or the text of Go's parse error
 * (`error parsing regexp: missing closing ): \`(a\``). Results are cached per pattern.
 * The `test` of a compiled pattern throws MatchTooExpensive rather than run too long.
 */
export function compileGoPattern(pattern: string): CompiledPattern {
  const hit = cache.get(pattern);
  if (hit) return hit;
  let result: CompiledPattern;
  try {
    new Parser(pattern).parse();
    const regexp = wrap(engine().RE2JS.compile(pattern));
    result = { ok: true, regexp, test: (s) => regexp.test(s) };
  } catch (e) {
    if (e instanceof GoRegexpError) result = { ok: false, error: e.message };
    else if (e instanceof engine().RE2JSException) result = { ok: false, error: goMessage(e.message, pattern) };
    else throw e;
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(pattern, result);
  return result;
}
