// JSON text <-> values, as Kubernetes reads and writes them. Two differences from plain
// JSON.parse/JSON.stringify matter: integers beyond 2^53 (int64 fields, which Go keeps
// exactly) and lone UTF-16 surrogate escapes (which Go reads as U+FFFD). Both are rare, so
// the native functions do the work and cheap checks decide when a careful path is needed:
//
// - An integer literal outside the safe range decodes to a `bigint` when it fits in int64
//   (beyond int64 Go's unstructured decoding falls back to a float, and so does this).
//   Every other number stays a `number`.
// - A `bigint` anywhere in a value is written as its exact decimal integer.
import { setOwn } from '../apimachinery/own.js';
import { checkRawBracketDepth } from './limits.js';

/**
 * A run of 16 digits: the shortest integer literal that can leave the safe range. Spelled
 * out digit by digit, which V8 scans about four times faster than `\d{16}`.
 */
const LONG_DIGITS = new RegExp('\\d'.repeat(16));
/** A `\uD800`-`\uDFFF` escape (possibly preceded by an escaped backslash: a false alarm is only slower). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

interface ParseJsonOptions {
  /** Refuse documents nested deeper than the request limit before parsing (default true). */
  checkDepth?: boolean;
  /**
   * Text this server wrote itself (stored objects): its strings are already well-formed,
   * so only big integers need looking for.
   */
  trusted?: boolean;
}

/**
 * Parses JSON text; throws SyntaxError (from JSON.parse) for malformed text, ApiError 400
 * for text nested beyond the limit. Keys such as `__proto__` become own properties.
 */
export function parseJsonText(s: string, opts: ParseJsonOptions = {}): unknown {
  if (opts.checkDepth !== false) checkRawBracketDepth(s);
  const value: unknown = JSON.parse(s);
  if (!LONG_DIGITS.test(s) && (opts.trusted === true || !SURROGATE_ESCAPE.test(s))) return value;
  // Well-formed (JSON.parse said so), but it may hold a big integer or a lone surrogate.
  return new CarefulReader(s).document();
}

/** Reads well-formed JSON text, keeping int64 integers exact and making strings well-formed. */
class CarefulReader {
  private pos = 0;

  constructor(private readonly s: string) {}

  document(): unknown {
    return this.value();
  }

  private space(): void {
    const s = this.s;
    let c = s.charCodeAt(this.pos);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = s.charCodeAt(++this.pos);
  }

  private value(): unknown {
    this.space();
    const c = this.s.charCodeAt(this.pos);
    if (c === 0x22) return this.string();
    if (c === 0x7b) return this.object();
    if (c === 0x5b) return this.array();
    if (c === 0x74) return this.literal('true', true);
    if (c === 0x66) return this.literal('false', false);
    if (c === 0x6e) return this.literal('null', null);
    return this.number();
  }

  private literal<T>(word: string, v: T): T {
    this.pos += word.length;
    return v;
  }

  private number(): number | bigint {
    const s = this.s;
    const start = this.pos;
    let integer = true;
    let i = start;
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === 0x2e || c === 0x65 || c === 0x45) integer = false;
      else if (!((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b)) break;
    }
    this.pos = i;
    const text = s.slice(start, i);
    const n = Number(text);
    // int64 literals have at most 19 digits and a sign: longer ones are floats in Go too.
    if (!integer || Number.isSafeInteger(n) || text.length > 20) return n;
    const big = BigInt(text);
    return big < INT64_MIN || big > INT64_MAX ? n : big;
  }

  private string(): string {
    const s = this.s;
    const start = this.pos;
    let end = s.indexOf('"', start + 1);
    // A quote preceded by an odd run of backslashes is escaped.
    for (;;) {
      let b = end - 1;
      while (s.charCodeAt(b) === 0x5c) b--;
      if ((end - 1 - b) % 2 === 0) break;
      end = s.indexOf('"', end + 1);
    }
    this.pos = end + 1;
    const raw = s.slice(start + 1, end);
    if (!raw.includes('\\')) return raw;
    const decoded = JSON.parse(s.slice(start, end + 1)) as string;
    return toWellFormed(decoded);
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.pos++;
    this.space();
    if (this.s.charCodeAt(this.pos) === 0x5d) {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.space();
      if (this.s.charCodeAt(this.pos++) === 0x5d) return out;
    }
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.pos++;
    this.space();
    if (this.s.charCodeAt(this.pos) === 0x7d) {
      this.pos++;
      return out;
    }
    for (;;) {
      this.space();
      const key = this.string();
      this.space();
      this.pos++; // the colon
      setOwn(out, key, this.value());
      this.space();
      if (this.s.charCodeAt(this.pos++) === 0x7d) return out;
    }
  }
}

/** Lone surrogates become U+FFFD, as Go decodes them (Node 20 has the method; ES2023's types do not). */
export function toWellFormed(s: string): string {
  const t = s as unknown as { isWellFormed(): boolean; toWellFormed(): string };
  return t.isWellFormed() ? s : t.toWellFormed();
}

/** JSON text of a value; `bigint`s are written as exact integers. Indents like JSON.stringify. */
export function stringifyJson(value: unknown, indent?: number): string {
  try {
    return (indent ? JSON.stringify(value, null, indent) : JSON.stringify(value)) ?? 'null';
  } catch (e) {
    // Only the BigInt refusal has a fallback; cycles and throwing toJSON stay errors.
    if (!(e instanceof TypeError) || !/BigInt/.test(e.message)) throw e;
    return write(value, indent ? ' '.repeat(indent) : '', '', new Set()) ?? 'null';
  }
}

/** The careful writer, used only for values holding a bigint. `open` holds the containers being written. */
function write(v: unknown, step: string, indent: string, open: Set<object>): string | undefined {
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    v = (v as { toJSON(): unknown }).toJSON();
  }
  switch (typeof v) {
    case 'bigint':
      return v.toString();
    case 'string':
    case 'number':
    case 'boolean':
      return JSON.stringify(v);
    case 'object':
      break;
    default:
      return undefined;
  }
  if (v === null) return 'null';
  if (open.has(v)) throw new TypeError('Converting circular structure to JSON');
  open.add(v);
  const out = writeContainer(v, step, indent, open);
  open.delete(v);
  return out;
}

function writeContainer(v: object, step: string, indent: string, open: Set<object>): string {
  const inner = indent + step;
  const first = step ? `\n${inner}` : '';
  const sep = step ? `,\n${inner}` : ',';
  const close = step ? `\n${indent}` : '';
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[${first}${v.map((x) => write(x, step, inner, open) ?? 'null').join(sep)}${close}]`;
  }
  const parts: string[] = [];
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const t = write(x, step, inner, open);
    if (t !== undefined) parts.push(`${JSON.stringify(k)}:${step ? ' ' : ''}${t}`);
  }
  return parts.length === 0 ? '{}' : `{${first}${parts.join(sep)}${close}}`;
}
