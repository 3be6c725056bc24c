// `pattern` is Go RE2 syntax. Patterns are translated to JavaScript's dialect where the two
// agree (Go's `.` never matches a newline, `\s` is ASCII, `\A`/`\z`, `(?P<name>`, POSIX
// classes, `\Q...\E`), and refused with Go's parser wording where RE2 refuses them
// (lookaround, backreferences, repeat counts over 1000). Constructs JavaScript cannot express
// (flags other than at the start) are refused in the same words.

export type CompiledPattern = { ok: true; re: RegExp } | { ok: false; error: string };

const MAX_REPEAT = 1000;
const MAX_NESTING = 1000;
const CACHE_LIMIT = 512;
const cache = new Map<string, CompiledPattern>();

const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

class GoRegexpError extends Error {
  constructor(code: string, expr: string) {
    super(`error parsing regexp: ${code}: \`${expr}\``);
  }
}

function hex(c: number): string {
  return c <= 0xff ? `\\x${c.toString(16).padStart(2, '0')}` : `\\u{${c.toString(16)}}`;
}

interface Translation {
  source: string;
  flags: string;
}

/** Translates one RE2 pattern; throws GoRegexpError. */
function translate(p: string): Translation {
  let out = '';
  let i = 0;
  let depth = 0;
  let unicode = false;
  let flags = '';
  // Leading flag groups (`(?i)`, `(?s)`, `(?m)`) apply to the whole pattern in JavaScript.
  const lead = /^\(\?([ims]+)\)/.exec(p);
  if (lead) {
    for (const f of lead[1]) if (!flags.includes(f)) flags += f;
    i = lead[0].length;
  }
  const dotAll = flags.includes('s');
  flags = flags.replace('s', '');
  let lastAtom = false; // whether a repetition operator has something to apply to
  let lastRepeat = false;

  const escape = (inClass: boolean): string => {
    const start = i;
    i++; // backslash
    if (i >= p.length) throw new GoRegexpError('trailing backslash at end of expression', '');
    const c = p[i];
    i++;
    switch (c) {
      case 'a': return '\\x07';
      case 'f': return '\\f';
      case 't': return '\\t';
      case 'n': return '\\n';
      case 'r': return '\\r';
      case 'v': return '\\v';
      case 'd': return inClass ? '0-9' : '[0-9]';
      case 'D': return inClass ? '\\D' : '[^0-9]';
      case 'w': return inClass ? '0-9A-Za-z_' : '[0-9A-Za-z_]';
      case 'W': return inClass ? '\\W' : '[^0-9A-Za-z_]';
      case 's': return inClass ? '\\t\\n\\f\\r ' : '[\\t\\n\\f\\r ]';
      case 'S': return inClass ? '\\S' : '[^\\t\\n\\f\\r ]';
      case 'b': case 'B':
        if (inClass) throw new GoRegexpError('invalid escape sequence', p.slice(start, i));
        return `\\${c}`;
      case 'A': case 'z':
        if (inClass) throw new GoRegexpError('invalid escape sequence', p.slice(start, i));
        return c === 'A' ? '(?<![\\s\\S])' : '(?![\\s\\S])';
      case 'p': case 'P': {
        unicode = true;
        if (p[i] === '{') {
          const end = p.indexOf('}', i);
          if (end < 0) throw new GoRegexpError('invalid character class range', p.slice(start));
          const name = p.slice(i + 1, end);
          i = end + 1;
          return `\\${c}{${name}}`;
        }
        if (i >= p.length) throw new GoRegexpError('invalid character class range', p.slice(start));
        return `\\${c}{${p[i++]}}`;
      }
      case 'x': {
        if (p[i] === '{') {
          const end = p.indexOf('}', i);
          const digits = end < 0 ? '' : p.slice(i + 1, end);
          if (!/^[0-9A-Fa-f]+$/.test(digits) || parseInt(digits, 16) > 0x10ffff) throw new GoRegexpError('invalid escape sequence', p.slice(start, end < 0 ? p.length : end + 1));
          i = end + 1;
          unicode = unicode || parseInt(digits, 16) > 0xff;
          return hex(parseInt(digits, 16));
        }
        const digits = p.slice(i, i + 2);
        if (!/^[0-9A-Fa-f]{2}$/.test(digits)) throw new GoRegexpError('invalid escape sequence', p.slice(start, i + digits.length));
        i += 2;
        return hex(parseInt(digits, 16));
      }
      case 'Q': {
        if (inClass) throw new GoRegexpError('invalid escape sequence', p.slice(start, i));
        const end = p.indexOf('\\E', i);
        const lit = end < 0 ? p.slice(i) : p.slice(i, end);
        i = end < 0 ? p.length : end + 2;
        let s = '';
        for (const ch of lit) s += hex(ch.codePointAt(0) ?? 0);
        unicode = unicode || [...lit].some((ch) => (ch.codePointAt(0) ?? 0) > 0xff);
        return s ? `(?:${s})` : '(?:)';
      }
      default:
        if (c >= '0' && c <= '7') {
          // A lone non-zero digit is a backreference, which RE2 does not have; otherwise octal.
          if (c !== '0' && !(p[i] >= '0' && p[i] <= '7')) throw new GoRegexpError('invalid escape sequence', p.slice(start, i));
          let digits = c;
          while (digits.length < 3 && p[i] >= '0' && p[i] <= '7') digits += p[i++];
          return hex(parseInt(digits, 8));
        }
        if (/[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/.test(c)) return hex(c.charCodeAt(0));
        throw new GoRegexpError('invalid escape sequence', p.slice(start, i));
    }
  };

  const charClass = (): string => {
    const start = i;
    i++; // [
    let s = '[';
    if (p[i] === '^') {
      s += '^';
      i++;
    }
    let first = true;
    while (i < p.length && (p[i] !== ']' || first)) {
      first = false;
      if (p.startsWith('[:', i)) {
        const end = p.indexOf(':]', i + 2);
        const name = end < 0 ? '' : p.slice(i + 2, end);
        const cls = Object.hasOwn(POSIX, name) ? POSIX[name] : undefined;
        if (cls !== undefined) {
          s += cls;
          i = end + 2;
          continue;
        }
        if (end >= 0 && /^\^?[a-z]+$/.test(name)) throw new GoRegexpError('invalid character class range', p.slice(i, end + 2));
      }
      if (p[i] === '\\') {
        s += escape(true);
        continue;
      }
      const cp = p.codePointAt(i) ?? 0;
      const ch = String.fromCodePoint(cp);
      if (cp > 0xffff) unicode = true;
      s += ch === '[' || ch === ']' || ch === '^' ? `\\${ch}` : ch;
      i += ch.length;
    }
    if (i >= p.length) throw new GoRegexpError('missing closing ]', p.slice(start));
    i++; // ]
    return `${s}]`;
  };

  while (i < p.length) {
    const c = p[i];
    if (c === '\\') {
      const e = escape(false);
      out += e;
      lastAtom = !/^\\[bB]$|^\(\?<?[!=]/.test(e);
      lastRepeat = false;
      continue;
    }
    if (c === '[') {
      out += charClass();
      lastAtom = true;
      lastRepeat = false;
      continue;
    }
    if (c === '(') {
      if (p[i + 1] === '?') {
        const rest = p.slice(i + 2);
        if (rest.startsWith(':')) {
          out += '(?:';
          i += 3;
        } else if (rest.startsWith('P<')) {
          const end = p.indexOf('>', i);
          const name = end < 0 ? '' : p.slice(i + 4, end);
          if (!/^[A-Za-z0-9_]+$/.test(name)) throw new GoRegexpError('invalid named capture', p.slice(i, end < 0 ? p.length : end + 1));
          out += `(?<${name}>`;
          i = end + 1;
        } else {
          const m = /^[imsU-]+[:)]/.exec(rest);
          throw new GoRegexpError('invalid or unsupported Perl syntax', m ? p.slice(i, i + 2 + m[0].length) : p.slice(i, i + 3));
        }
      } else {
        out += '(';
        i++;
      }
      depth++;
      if (depth > MAX_NESTING) throw new GoRegexpError('expression nests too deeply', p);
      lastAtom = false;
      lastRepeat = false;
      continue;
    }
    if (c === ')') {
      if (depth === 0) throw new GoRegexpError('unexpected )', p);
      depth--;
      out += ')';
      i++;
      lastAtom = true;
      lastRepeat = false;
      continue;
    }
    if (c === '*' || c === '+' || c === '?' || c === '{') {
      let op = c;
      if (c === '{') {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i));
        if (!m) {
          // Not a repeat: a literal brace, as in Go.
          out += '\\{';
          i++;
          lastAtom = true;
          lastRepeat = false;
          continue;
        }
        op = m[0];
        const lo = Number(m[1]);
        const hi = m[3] === undefined ? lo : m[3] === '' ? -1 : Number(m[3]);
        if (lo > MAX_REPEAT || hi > MAX_REPEAT || (hi >= 0 && hi < lo)) throw new GoRegexpError('invalid repeat count', op);
      }
      if (lastRepeat) throw new GoRegexpError('invalid nested repetition operator', p.slice(i - 1, i + op.length));
      if (!lastAtom) throw new GoRegexpError('missing argument to repetition operator', op);
      out += op;
      i += op.length;
      if (p[i] === '?') {
        out += '?';
        i++;
      }
      lastRepeat = true;
      continue;
    }
    if (c === '.') {
      out += dotAll ? '[^]' : '[^\\n]';
      i++;
      lastAtom = true;
      lastRepeat = false;
      continue;
    }
    if (c === '|' || c === '^' || c === '$') {
      out += c;
      i++;
      lastAtom = false;
      lastRepeat = false;
      continue;
    }
    const cp = p.codePointAt(i) ?? 0;
    const ch = String.fromCodePoint(cp);
    if (cp > 0xffff) unicode = true;
    out += ch === '/' ? '\\/' : ch === ']' || ch === '}' ? `\\${ch}` : ch;
    i += ch.length;
    lastAtom = true;
    lastRepeat = false;
  }
  if (depth > 0) throw new GoRegexpError('missing closing )', p);
  return { source: out, flags: flags + (unicode ? 'u' : '') };
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
    const t = translate(pattern);
    result = { ok: true, re: new RegExp(t.source, t.flags) };
  } catch (e) {
    result = { ok: false, error: e instanceof GoRegexpError ? e.message : `error parsing regexp: ${(e as Error).message}` };
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(pattern, result);
  return result;
}
