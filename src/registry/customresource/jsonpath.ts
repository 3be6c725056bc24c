// The JSONPath subset printer columns use (Kubernetes' client-go jsonpath with missing keys
// allowed): fields (`.a.b`, `['a.b']`), array indexes (negative from the end), slices,
// wildcards, recursive descent (`..name`) and filters (`[?(@.type=="Ready")]`, comparisons
// with `==`, `!=`, `<`, `<=`, `>`, `>=`, or existence). Every match is returned in document order.
import { getOwn } from '../../apimachinery/own.js';

type Segment =
  | { kind: 'field'; name: string }
  | { kind: 'wildcard' }
  | { kind: 'recursive'; name: string | undefined }
  | { kind: 'index'; index: number }
  | { kind: 'slice'; start?: number; end?: number; step?: number }
  | { kind: 'filter'; left: Segment[]; op?: string; right?: Operand };

type Operand = { kind: 'literal'; value: unknown } | { kind: 'path'; path: Segment[] };

export class JSONPathError extends Error {}

/** A parsed path; `find` returns every value it reaches (none when a key is missing). */
export interface JSONPath {
  find(data: unknown): unknown[];
}

/** Parses a path with or without the surrounding braces (`{.spec.replicas}` or `.spec.replicas`). */
export function parseJSONPath(text: string): JSONPath {
  let src = text.trim();
  if (src.startsWith('{') && src.endsWith('}')) src = src.slice(1, -1).trim();
  const parser = new Parser(src);
  const segments = parser.path(true);
  if (!parser.done()) throw new JSONPathError(`unrecognized character in action: ${JSON.stringify(src.slice(parser.pos))}`);
  return { find: (data) => evaluate(segments, [data]) };
}

const IDENT_STOP = new Set(['.', '[', ']', ' ', '(', ')', '=', '!', '<', '>', ',', '\t']);

class Parser {
  pos = 0;
  constructor(private readonly src: string) {}

  done(): boolean {
    return this.pos >= this.src.length;
  }

  private peek(n = 0): string {
    return this.src[this.pos + n] ?? '';
  }

  private skipSpace(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos++;
  }

  /** Segments until the end (root) or until an operator or `)` (inside a filter). */
  path(root: boolean): Segment[] {
    const out: Segment[] = [];
    if (root && this.peek() === '$') this.pos++;
    while (!this.done()) {
      const c = this.peek();
      if (c === '.') {
        if (this.peek(1) === '.') {
          this.pos += 2;
          const name = this.peek() === '*' ? (this.pos++, undefined) : this.ident();
          out.push({ kind: 'recursive', name: name === '' ? undefined : name });
          continue;
        }
        this.pos++;
        if (this.peek() === '*') {
          this.pos++;
          out.push({ kind: 'wildcard' });
          continue;
        }
        const name = this.ident();
        // A lone `.` is the current object.
        if (name !== '') out.push({ kind: 'field', name });
        continue;
      }
      if (c === '[') {
        out.push(this.bracket());
        continue;
      }
      if (root) throw new JSONPathError(`unrecognized character in action: ${JSON.stringify(this.src.slice(this.pos))}`);
      break;
    }
    return out;
  }

  private ident(): string {
    let name = '';
    while (!this.done() && !IDENT_STOP.has(this.peek())) {
      if (this.peek() === '\\' && this.peek(1) !== '') {
        name += this.peek(1);
        this.pos += 2;
        continue;
      }
      name += this.peek();
      this.pos++;
    }
    return name;
  }

  private bracket(): Segment {
    this.pos++; // [
    this.skipSpace();
    let seg: Segment;
    const c = this.peek();
    if (c === '?') {
      seg = this.filter();
    } else if (c === "'" || c === '"') {
      seg = { kind: 'field', name: this.quoted() };
    } else if (c === '*') {
      this.pos++;
      seg = { kind: 'wildcard' };
    } else {
      seg = this.indexOrSlice();
    }
    this.skipSpace();
    if (this.peek() !== ']') throw new JSONPathError(`unterminated array`);
    this.pos++;
    return seg;
  }

  private quoted(): string {
    const q = this.peek();
    this.pos++;
    let s = '';
    while (!this.done() && this.peek() !== q) {
      if (this.peek() === '\\' && this.peek(1) !== '') {
        s += this.peek(1);
        this.pos += 2;
        continue;
      }
      s += this.peek();
      this.pos++;
    }
    if (this.done()) throw new JSONPathError('unclosed quote');
    this.pos++;
    return s;
  }

  private integer(): number | undefined {
    const m = /^-?\d+/.exec(this.src.slice(this.pos));
    if (!m) return undefined;
    this.pos += m[0].length;
    return Number(m[0]);
  }

  private indexOrSlice(): Segment {
    const parts: (number | undefined)[] = [this.integer()];
    while (this.peek() === ':') {
      this.pos++;
      parts.push(this.integer());
    }
    if (parts.length === 1) {
      if (parts[0] === undefined) throw new JSONPathError(`invalid array index`);
      return { kind: 'index', index: parts[0] };
    }
    if (parts.length > 3) throw new JSONPathError('invalid array index');
    return { kind: 'slice', start: parts[0], end: parts[1], step: parts[2] };
  }

  private filter(): Segment {
    this.pos++; // ?
    if (this.peek() !== '(') throw new JSONPathError('unrecognized filter');
    this.pos++;
    this.skipSpace();
    const left = this.operandPath();
    this.skipSpace();
    let op: string | undefined;
    let right: Operand | undefined;
    const m = /^(==|!=|<=|>=|<|>)/.exec(this.src.slice(this.pos));
    if (m) {
      op = m[1];
      this.pos += m[0].length;
      this.skipSpace();
      right = this.operand();
      this.skipSpace();
    }
    if (this.peek() !== ')') throw new JSONPathError('unclosed filter');
    this.pos++;
    return { kind: 'filter', left, op, right };
  }

  private operandPath(): Segment[] {
    if (this.peek() !== '@') throw new JSONPathError('filter must start with @');
    this.pos++;
    return this.path(false);
  }

  private operand(): Operand {
    const c = this.peek();
    if (c === '@') return { kind: 'path', path: this.operandPath() };
    if (c === "'" || c === '"') return { kind: 'literal', value: this.quoted() };
    const m = /^(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null)/.exec(this.src.slice(this.pos));
    if (!m) throw new JSONPathError('unrecognized filter operand');
    this.pos += m[0].length;
    const word = m[0];
    return { kind: 'literal', value: word === 'true' ? true : word === 'false' ? false : word === 'null' ? null : Number(word) };
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function childValues(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (isRecord(v)) return Object.keys(v).sort().map((k) => v[k]);
  return [];
}

function field(v: unknown, name: string): unknown[] {
  if (!isRecord(v)) return [];
  const child = getOwn(v, name);
  return child === undefined ? [] : [child];
}

function descend(v: unknown, name: string | undefined, out: unknown[]): void {
  if (name === undefined) out.push(...childValues(v));
  else out.push(...field(v, name));
  for (const c of childValues(v)) if (c !== null && typeof c === 'object') descend(c, name, out);
}

function sliceOf(list: unknown[], seg: { start?: number; end?: number; step?: number }): unknown[] {
  const n = list.length;
  const norm = (i: number | undefined, dflt: number): number => {
    if (i === undefined) return dflt;
    const j = i < 0 ? i + n : i;
    return Math.min(Math.max(j, 0), n);
  };
  const step = seg.step === undefined || seg.step === 0 ? 1 : seg.step;
  const start = norm(seg.start, 0);
  const end = norm(seg.end, n);
  const out: unknown[] = [];
  if (step > 0) for (let i = start; i < end; i += step) out.push(list[i]);
  return out;
}

function matches(item: unknown, seg: Extract<Segment, { kind: 'filter' }>): boolean {
  const left = evaluate(seg.left, [item]);
  if (!seg.op || !seg.right) return left.length > 0 && left[0] !== null && left[0] !== false;
  const right = seg.right.kind === 'literal' ? [seg.right.value] : evaluate(seg.right.path, [item]);
  if (left.length === 0 || right.length === 0) return false;
  return compare(left[0], seg.op, right[0]);
}

function compare(a: unknown, op: string, b: unknown): boolean {
  const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : undefined);
  const na = num(a);
  const nb = num(b);
  if (op === '==' || op === '!=') {
    const eq = na !== undefined && nb !== undefined ? na === nb : a === b;
    return op === '==' ? eq : !eq;
  }
  if (na === undefined || nb === undefined) return false;
  switch (op) {
    case '<':
      return na < nb;
    case '<=':
      return na <= nb;
    case '>':
      return na > nb;
    default:
      return na >= nb;
  }
}

function evaluate(segments: Segment[], start: unknown[]): unknown[] {
  let current = start;
  for (const seg of segments) {
    const next: unknown[] = [];
    for (const v of current) {
      switch (seg.kind) {
        case 'field':
          next.push(...field(v, seg.name));
          break;
        case 'wildcard':
          next.push(...childValues(v));
          break;
        case 'recursive':
          descend(v, seg.name, next);
          break;
        case 'index':
          if (Array.isArray(v)) {
            const i = seg.index < 0 ? seg.index + v.length : seg.index;
            if (i >= 0 && i < v.length) next.push(v[i]);
          }
          break;
        case 'slice':
          if (Array.isArray(v)) next.push(...sliceOf(v, seg));
          break;
        case 'filter':
          for (const item of Array.isArray(v) ? v : isRecord(v) ? childValues(v) : []) if (matches(item, seg)) next.push(item);
          break;
      }
    }
    current = next;
  }
  return current;
}
