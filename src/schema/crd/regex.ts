// `pattern` is Go RE2 syntax, matched in linear time as RE2 matches it: a pattern is parsed
// with Go's rules (and refused in its parser's words), compiled to a Thompson automaton and
// run as a set of states over the value's code points. A JavaScript RegExp would backtrack:
// a hostile pattern such as `^(a+)+$` would then stall every write of the custom resource.

export type CompiledPattern = { ok: true; test: (s: string) => boolean } | { ok: false; error: string };

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
/** States of one compiled pattern; Go refuses programs of this order as too large. */
const MAX_STATES = 1_000_000;
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
// Thompson automaton

const CHAR = 0;
const SPLIT = 1;
const ASSERT = 2;
const MATCH = 3;
const JUMP = 4;

class TooLarge extends Error {}

class Program {
  kind: number[] = [];
  out: number[] = [];
  out2: number[] = [];
  pred: (Pred | undefined)[] = [];
  assert: (AssertKind | undefined)[] = [];

  add(kind: number, pred?: Pred, assert?: AssertKind): number {
    if (this.kind.length >= MAX_STATES) throw new TooLarge();
    this.kind.push(kind);
    this.out.push(-1);
    this.out2.push(-1);
    this.pred.push(pred);
    this.assert.push(assert);
    return this.kind.length - 1;
  }
}

/** Compiles `node` so that it continues at `next`; returns its entry state. */
function compile(prog: Program, node: Node, next: number): number {
  switch (node.t) {
    case 'empty':
      return next;
    case 'char': {
      const s = prog.add(CHAR, node.pred);
      prog.out[s] = next;
      return s;
    }
    case 'assert': {
      const s = prog.add(ASSERT, undefined, node.kind);
      prog.out[s] = next;
      return s;
    }
    case 'cat': {
      let entry = next;
      for (let k = node.list.length - 1; k >= 0; k--) entry = compile(prog, node.list[k], entry);
      return entry;
    }
    case 'alt': {
      let entry = compile(prog, node.list[node.list.length - 1], next);
      for (let k = node.list.length - 2; k >= 0; k--) {
        const s = prog.add(SPLIT);
        prog.out[s] = compile(prog, node.list[k], next);
        prog.out2[s] = entry;
        entry = s;
      }
      return entry;
    }
    case 'rep': {
      let entry = next;
      if (node.max < 0) {
        // x* : a loop back through a split.
        const loop = prog.add(SPLIT);
        const jump = prog.add(JUMP);
        prog.out[jump] = loop;
        prog.out[loop] = compile(prog, node.node, jump);
        prog.out2[loop] = next;
        entry = loop;
      } else {
        for (let k = node.max - node.min; k > 0; k--) {
          const s = prog.add(SPLIT);
          prog.out[s] = compile(prog, node.node, entry);
          prog.out2[s] = next;
          entry = s;
        }
      }
      for (let k = 0; k < node.min; k++) entry = compile(prog, node.node, entry);
      return entry;
    }
  }
}

function assertHolds(kind: AssertKind, prev: number, next: number): boolean {
  switch (kind) {
    case 'bot': return prev < 0;
    case 'eot': return next < 0;
    case 'bol': return prev < 0 || prev === 10;
    case 'eol': return next < 0 || next === 10;
    case 'wb': return isWordChar(prev) !== isWordChar(next);
    case 'nwb': return isWordChar(prev) === isWordChar(next);
  }
}

/** Scratch space of one program, reused by every run (runs are synchronous). */
interface Scratch {
  mark: Uint32Array;
  gen: number;
  clist: Int32Array;
  nlist: Int32Array;
  stack: Int32Array;
}

/** Whether the automaton matches anywhere in `s`: a set of states stepped over each code point. */
function run(prog: Program, start: number, scratch: Scratch, s: string): boolean {
  const { mark, stack } = scratch;
  let { clist, nlist } = scratch;
  let ccount = 0;
  const cps: number[] = [];
  for (const ch of s) cps.push(ch.codePointAt(0) ?? 0);
  if (scratch.gen > 0xfffffff0 - 2 * (cps.length + 2)) {
    mark.fill(0);
    scratch.gen = 0;
  }

  // Adds `state`'s closure at position `pos` to `list`; true when it reaches the match state.
  // A state is marked when pushed, so each is visited once per generation.
  const addClosure = (state: number, pos: number, list: Int32Array, count: { n: number }): boolean => {
    const gen = scratch.gen;
    let sp = 0;
    const push = (st: number): void => {
      if (st >= 0 && mark[st] !== gen) {
        mark[st] = gen;
        stack[sp++] = st;
      }
    };
    push(state);
    const prev = pos > 0 ? cps[pos - 1] : -1;
    const next = pos < cps.length ? cps[pos] : -1;
    while (sp > 0) {
      const st = stack[--sp];
      switch (prog.kind[st]) {
        case MATCH:
          return true;
        case CHAR:
          list[count.n++] = st;
          break;
        case JUMP:
          push(prog.out[st]);
          break;
        case SPLIT:
          push(prog.out2[st]);
          push(prog.out[st]);
          break;
        case ASSERT:
          if (assertHolds(prog.assert[st] as AssertKind, prev, next)) push(prog.out[st]);
          break;
      }
    }
    return false;
  };

  for (let pos = 0; pos <= cps.length; pos++) {
    // Unanchored: a new thread may start at every position.
    const gen = ++scratch.gen;
    for (let k = 0; k < ccount; k++) mark[clist[k]] = gen;
    const count = { n: ccount };
    if (addClosure(start, pos, clist, count)) return true;
    ccount = count.n;
    if (pos === cps.length) break;
    const c = cps[pos];
    scratch.gen++;
    const ncount = { n: 0 };
    for (let k = 0; k < ccount; k++) {
      const st = clist[k];
      if ((prog.pred[st] as Pred)(c) && addClosure(prog.out[st], pos + 1, nlist, ncount)) return true;
    }
    [clist, nlist] = [nlist, clist];
    ccount = ncount.n;
  }
  return false;
}

/**
 * The pattern compiled with Go's semantics, or the text of Go's parse error
 * (`error parsing regexp: missing closing ): \`(a\``). Results are cached per pattern.
 */
export function compileGoPattern(pattern: string): CompiledPattern {
  const hit = cache.get(pattern);
  if (hit) return hit;
  let result: CompiledPattern;
  try {
    const ast = new Parser(pattern).parse();
    const prog = new Program();
    const match = prog.add(MATCH);
    const start = compile(prog, ast, match);
    const n = prog.kind.length;
    const scratch: Scratch = { mark: new Uint32Array(n), gen: 0, clist: new Int32Array(n), nlist: new Int32Array(n), stack: new Int32Array(n) };
    result = { ok: true, test: (s) => run(prog, start, scratch, s) };
  } catch (e) {
    if (e instanceof TooLarge) result = { ok: false, error: new GoRegexpError('expression too large', pattern).message };
    else if (e instanceof GoRegexpError) result = { ok: false, error: e.message };
    else throw e;
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(pattern, result);
  return result;
}
