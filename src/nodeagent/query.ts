// The JQ expressions a Stage's selector keys and `*From` fields are written in (KWOK reads
// them with a JQ implementation): the subset those stages use, compiled once at load.
//
//   .metadata.deletionTimestamp                       a path (a missing member is null)
//   .metadata.annotations["a.b/c"]   ."a-b"   .[0]     members by string, elements by index
//   .status.conditions.[]   .items[]                  every element (or member value)
//   ... | select( .type == "Ready" ) | .status        pipes, select with == and != (and, or)
//
// A query yields a stream of values, nulls left out. A type error (a member of a string,
// the elements of null) ends the query with no values, as KWOK reads an error: a selector
// `In` or `Exists` is then false, `NotIn` or `DoesNotExist` true.

import { getOwn } from '../apimachinery/own.js';
import { isPlainObject } from '../apimachinery/types.js';

/** A query that cannot be compiled; the message says where. */
export class QueryError extends Error {}

/** The longest query text accepted (selector keys are short). */
const MAX_QUERY_LENGTH = 1024;
/** The most values one step may produce, so that a query's cost is bounded. */
const MAX_STREAM = 100_000;

type Step = { kind: 'member'; name: string } | { kind: 'index'; index: number } | { kind: 'each' };

type Expr =
  | { kind: 'path'; steps: Step[] }
  | { kind: 'literal'; value: unknown }
  | { kind: 'pipe'; left: Expr; right: Expr }
  | { kind: 'select'; cond: Expr }
  | { kind: 'compare'; op: '==' | '!='; left: Expr; right: Expr }
  | { kind: 'logic'; op: 'and' | 'or'; left: Expr; right: Expr };

export interface Query {
  readonly source: string;
  /** The values of the query on `input`: empty on a type error. */
  run(input: unknown): unknown[];
}

// ---------------------------------------------------------------------------------------
// Tokens

type Token =
  | { t: 'dot'; pos: number }
  | { t: 'ident'; v: string; pos: number }
  | { t: 'string'; v: string; pos: number }
  | { t: 'number'; v: number; pos: number }
  | { t: 'punct'; v: '[' | ']' | '(' | ')' | '|' | '==' | '!='; pos: number }
  | { t: 'end'; pos: number };

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    const pos = i;
    if (c === '.') {
      out.push({ t: 'dot', pos });
      i++;
    } else if (c === '[' || c === ']' || c === '(' || c === ')' || c === '|') {
      out.push({ t: 'punct', v: c, pos });
      i++;
    } else if ((c === '=' || c === '!') && src[i + 1] === '=') {
      out.push({ t: 'punct', v: c === '=' ? '==' : '!=', pos });
      i += 2;
    } else if (c === '"') {
      // A JSON string: JSON.parse reads its escapes exactly.
      let j = i + 1;
      while (j < src.length && src[j] !== '"') j += src[j] === '\\' ? 2 : 1;
      if (j >= src.length) throw new QueryError(`unterminated string at ${pos}`);
      let v: unknown;
      try {
        v = JSON.parse(src.slice(i, j + 1));
      } catch {
        throw new QueryError(`bad string at ${pos}`);
      }
      out.push({ t: 'string', v: v as string, pos });
      i = j + 1;
    } else if (/[0-9-]/.test(c)) {
      const m = /^-?\d+(\.\d+)?/.exec(src.slice(i));
      if (!m) throw new QueryError(`unexpected "${c}" at ${pos}`);
      out.push({ t: 'number', v: Number(m[0]), pos });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))!;
      out.push({ t: 'ident', v: m[0], pos });
      i += m[0].length;
    } else {
      throw new QueryError(`unexpected "${c}" at ${pos}`);
    }
  }
  out.push({ t: 'end', pos: src.length });
  return out;
}

// ---------------------------------------------------------------------------------------
// Parser: pipe := logic ('|' logic)*; logic := compare (('and'|'or') compare)*;
// compare := term (('=='|'!=') term)?; term := path | literal | select '(' pipe ')' | '(' pipe ')'

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.i]!;
  }

  private next(): Token {
    return this.tokens[this.i++]!;
  }

  private expect(v: ']' | ')'): void {
    const t = this.next();
    if (t.t !== 'punct' || t.v !== v) throw new QueryError(`expected "${v}" at ${t.pos}`);
  }

  parse(): Expr {
    const e = this.pipe();
    const t = this.peek();
    if (t.t !== 'end') throw new QueryError(`unexpected token at ${t.pos}`);
    return e;
  }

  private pipe(): Expr {
    let left = this.logic();
    for (;;) {
      const t = this.peek();
      if (t.t !== 'punct' || t.v !== '|') return left;
      this.next();
      left = { kind: 'pipe', left, right: this.logic() };
    }
  }

  private logic(): Expr {
    let left = this.compare();
    for (;;) {
      const t = this.peek();
      if (t.t !== 'ident' || (t.v !== 'and' && t.v !== 'or')) return left;
      this.next();
      left = { kind: 'logic', op: t.v, left, right: this.compare() };
    }
  }

  private compare(): Expr {
    const left = this.term();
    const t = this.peek();
    if (t.t === 'punct' && (t.v === '==' || t.v === '!=')) {
      this.next();
      return { kind: 'compare', op: t.v, left, right: this.term() };
    }
    return left;
  }

  private term(): Expr {
    const t = this.next();
    switch (t.t) {
      case 'dot':
        return this.path();
      case 'string':
        return { kind: 'literal', value: t.v };
      case 'number':
        return { kind: 'literal', value: t.v };
      case 'ident':
        if (t.v === 'true' || t.v === 'false') return { kind: 'literal', value: t.v === 'true' };
        if (t.v === 'null') return { kind: 'literal', value: null };
        if (t.v === 'select') {
          const open = this.next();
          if (open.t !== 'punct' || open.v !== '(') throw new QueryError(`expected "(" after select at ${open.pos}`);
          const cond = this.pipe();
          this.expect(')');
          return { kind: 'select', cond };
        }
        throw new QueryError(`"${t.v}" at ${t.pos} is not supported (paths, select, ==, !=, and, or, |)`);
      case 'punct':
        if (t.v === '(') {
          const e = this.pipe();
          this.expect(')');
          return e;
        }
        throw new QueryError(`unexpected "${t.v}" at ${t.pos}`);
      default:
        throw new QueryError(`unexpected end of query`);
    }
  }

  /** After the leading dot: `.`, `.a.b`, `.a[]`, `.["k"]`, `.a.[0]`, `."k"`. */
  private path(): Expr {
    const steps: Step[] = [];
    // The name right after a dot, if any.
    const afterDot = (): void => {
      const t = this.peek();
      if (t.t === 'ident') {
        this.next();
        steps.push({ kind: 'member', name: t.v });
      } else if (t.t === 'string') {
        this.next();
        steps.push({ kind: 'member', name: t.v });
      }
    };
    afterDot();
    for (;;) {
      const t = this.peek();
      if (t.t === 'punct' && t.v === '[') {
        this.next();
        const inner = this.next();
        if (inner.t === 'punct' && inner.v === ']') {
          steps.push({ kind: 'each' });
          continue;
        }
        if (inner.t === 'string') steps.push({ kind: 'member', name: inner.v });
        else if (inner.t === 'number' && Number.isInteger(inner.v)) steps.push({ kind: 'index', index: inner.v });
        else throw new QueryError(`expected "]", a string or an integer at ${inner.pos}`);
        this.expect(']');
        continue;
      }
      if (t.t === 'dot') {
        this.next();
        const n = this.peek();
        if (n.t === 'ident' || n.t === 'string' || (n.t === 'punct' && n.v === '[')) {
          afterDot();
          continue;
        }
        throw new QueryError(`expected a name or "[" after "." at ${n.pos}`);
      }
      return { kind: 'path', steps };
    }
  }
}

// ---------------------------------------------------------------------------------------
// Evaluation

/** A type error ends a query with no values: a plain marker, thrown often, so without a stack. */
class TypeFailure {
  constructor(readonly message: string) {}
}

function typeName(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  return isPlainObject(v) ? 'object' : typeof v;
}

function step(values: unknown[], s: Step): unknown[] {
  const out: unknown[] = [];
  for (const v of values) {
    switch (s.kind) {
      case 'member':
        if (v === null || v === undefined) out.push(null);
        else if (isPlainObject(v)) out.push(getOwn(v, s.name) ?? null);
        else throw new TypeFailure(`cannot index ${typeName(v)} with "${s.name}"`);
        break;
      case 'index':
        if (v === null || v === undefined) out.push(null);
        else if (Array.isArray(v)) out.push(v[s.index < 0 ? v.length + s.index : s.index] ?? null);
        else throw new TypeFailure(`cannot index ${typeName(v)} with number`);
        break;
      case 'each':
        if (Array.isArray(v)) out.push(...v);
        else if (isPlainObject(v)) out.push(...Object.values(v));
        else throw new TypeFailure(`cannot iterate over ${typeName(v)}`);
        break;
    }
    if (out.length > MAX_STREAM) throw new TypeFailure('too many values');
  }
  return out;
}

function truthy(v: unknown): boolean {
  return v !== false && v !== null && v !== undefined;
}

/** JSON equality, numbers by value (bigint or number alike). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) return Number(a) === Number(b);
  if (a === null || a === undefined) return b === null || b === undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || b === null) return a === b;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(getOwn(a as Record<string, unknown>, k), getOwn(b as Record<string, unknown>, k)));
}

function evaluate(e: Expr, input: unknown): unknown[] {
  switch (e.kind) {
    case 'literal':
      return [e.value];
    case 'path': {
      let values: unknown[] = [input];
      for (const s of e.steps) values = step(values, s);
      return values;
    }
    case 'pipe': {
      const out: unknown[] = [];
      for (const v of evaluate(e.left, input)) {
        out.push(...evaluate(e.right, v));
        if (out.length > MAX_STREAM) throw new TypeFailure('too many values');
      }
      return out;
    }
    case 'select':
      return evaluate(e.cond, input).some(truthy) ? [input] : [];
    case 'compare': {
      const out: unknown[] = [];
      for (const r of evaluate(e.right, input)) for (const l of evaluate(e.left, input)) out.push(jsonEqual(l, r) === (e.op === '=='));
      return out;
    }
    case 'logic': {
      const out: unknown[] = [];
      for (const l of evaluate(e.left, input)) {
        if (e.op === 'and' && !truthy(l)) out.push(false);
        else if (e.op === 'or' && truthy(l)) out.push(true);
        else for (const r of evaluate(e.right, input)) out.push(truthy(r));
      }
      return out;
    }
  }
}

/** Compiles `source`; throws QueryError naming what is not supported. */
export function compileQuery(source: string): Query {
  if (source.length > MAX_QUERY_LENGTH) throw new QueryError(`longer than ${MAX_QUERY_LENGTH} characters`);
  const expr = new Parser(tokenize(source)).parse();
  return {
    source,
    run(input) {
      try {
        return evaluate(expr, input).filter((v) => v !== null && v !== undefined);
      } catch (err) {
        if (err instanceof TypeFailure) return [];
        throw err;
      }
    },
  };
}
