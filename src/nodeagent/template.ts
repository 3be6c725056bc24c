// The Go templates of KWOK's `statusTemplate`: a small evaluator of our own for the subset
// Stages are written in, checked when a Stage is loaded so that what is not supported fails
// then, naming itself, rather than when a pod reaches the stage.
//
//   text {{ pipeline }}  {{- trim -}}  {{/* comments */}}
//   {{ .metadata.name }}  {{ $x := pipeline }}  {{ $x = pipeline }}  {{ $ }}  {{ $x.a.b }}
//   {{ if p }} {{ else if p }} {{ else }} {{ end }}     {{ with p }} ... {{ else }} ... {{ end }}
//   {{ range p }} {{ range $i, $e := p }} ... {{ else }} ... {{ end }}  {{ break }} {{ continue }}
//   pipelines with `|` and `( ... )`, literals (strings, raw strings, numbers, true, false, nil)
//   Go's functions: and or not eq ne lt le gt ge len index print printf println
//   KWOK's: Now StartTime Quote YAML Version NodeConditions NodeIP NodeName NodePort PodIP
//           NodeIPWith NodeIPsWith PodIPWith PodIPsWith
//   a few of sprig's: dict list default empty coalesce hasKey ternary add add1 sub mul div
//           mod max min int toString toJson upper lower trim
//
// Rendering is bounded (steps, output size, nesting), reads data by own properties only,
// and is lenient where Go would fail on data (a field of nil is nil): data a user's object
// carries never fails a stage that loaded.

import { stringify as stringifyYaml } from 'yaml';
import { getOwn, setOwn } from '../apimachinery/own.js';
import { isPlainObject } from '../apimachinery/types.js';
import { jsonEqual } from './query.js';

/** A template that cannot be loaded; the message says what and where (line). */
export class TemplateError extends Error {}

/** Rendering failed on this data (a function's arguments, a limit). */
export class RenderError extends Error {}

const MAX_TEMPLATE_LENGTH = 256 * 1024;
const MAX_NESTING = 64;
const MAX_OUTPUT = 1024 * 1024;
const MAX_STEPS = 200_000;

/** Functions whose values come from the node agent (KWOK's names). */
export interface TemplateEnv {
  now(): Date;
  startTime(): Date;
  version(): string;
  nodeConditions(): unknown[];
  nodeIP(): string;
  nodeName(): string;
  nodePort(): number;
  podIP(): string;
  nodeIPWith(nodeName: string): string;
  nodeIPsWith(nodeName: string): string[];
  podIPWith(nodeName: string, hostNetwork: boolean, uid: string, name: string, namespace: string): string;
  podIPsWith(nodeName: string, hostNetwork: boolean, uid: string, name: string, namespace: string): string[];
}

// ---------------------------------------------------------------------------------------
// Syntax

type Operand =
  | { t: 'field'; path: string[] } // from dot
  | { t: 'var'; name: string; path: string[] }
  | { t: 'lit'; value: unknown }
  | { t: 'func'; name: string }
  | { t: 'sub'; pipe: Pipe; path: string[] };

interface Command {
  args: Operand[];
}

interface Pipe {
  /** Variables declared (`:=`) or assigned (`=`) with the pipeline's value. */
  vars: string[];
  assign: boolean;
  cmds: Command[];
  line: number;
}

type Node =
  | { t: 'text'; text: string }
  | { t: 'out'; pipe: Pipe }
  | { t: 'if' | 'with'; pipe: Pipe; then: Node[]; else?: Node[] }
  | { t: 'range'; pipe: Pipe; body: Node[]; else?: Node[] }
  | { t: 'break' | 'continue' };

type Tok =
  | { k: 'ident'; v: string; space: boolean }
  | { k: 'field'; path: string[]; space: boolean }
  | { k: 'var'; name: string; path: string[]; space: boolean }
  | { k: 'str'; v: string; space: boolean }
  | { k: 'num'; v: number; space: boolean }
  | { k: 'p'; v: '(' | ')' | '|' | ':=' | '=' | ','; space: boolean };

interface Action {
  toks: Tok[];
  line: number;
}

type Piece = { kind: 'text'; text: string } | { kind: 'action'; action: Action };

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*/;
const FIELD_CHAIN = /^(\.[A-Za-z_][A-Za-z0-9_]*)+/;

function unquoteGo(body: string, line: number): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i];
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'", a: '\x07', b: '\b', f: '\f', v: '\v' };
    if (e !== undefined && simple[e] !== undefined) {
      out += simple[e];
      continue;
    }
    const hex = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
    if (hex > 0 && /^[0-9a-fA-F]+$/.test(body.slice(i + 1, i + 1 + hex)) && body.length >= i + 1 + hex) {
      const cp = parseInt(body.slice(i + 1, i + 1 + hex), 16);
      if (cp > 0x10ffff) throw new TemplateError(`line ${line}: bad escape in string`);
      out += String.fromCodePoint(cp);
      i += hex;
      continue;
    }
    throw new TemplateError(`line ${line}: bad escape in string`);
  }
  return out;
}

/** Splits the template into text and the tokens of each action. */
function lex(src: string): Piece[] {
  const pieces: Piece[] = [];
  let i = 0;
  let line = 1;
  let trimNext = false;
  const countLines = (s: string): void => {
    for (const ch of s) if (ch === '\n') line++;
  };
  while (i < src.length) {
    const open = src.indexOf('{{', i);
    let text = open < 0 ? src.slice(i) : src.slice(i, open);
    if (trimNext) text = text.replace(/^[ \t\r\n]+/, '');
    trimNext = false;
    countLines(open < 0 ? src.slice(i) : src.slice(i, open));
    if (open < 0) {
      if (text) pieces.push({ kind: 'text', text });
      break;
    }
    let j = open + 2;
    if (src[j] === '-' && /[ \t\r\n]/.test(src[j + 1] ?? '')) {
      text = text.replace(/[ \t\r\n]+$/, '');
      j += 2;
    }
    if (text) pieces.push({ kind: 'text', text });
    const actionLine = line;
    // A comment: {{/* ... */}}, with the same trim markers.
    const afterSpace = src.slice(j).match(/^[ \t\r\n]*/)![0].length;
    if (src.startsWith('/*', j + afterSpace)) {
      const end = src.indexOf('*/', j + afterSpace + 2);
      if (end < 0) throw new TemplateError(`line ${actionLine}: unclosed comment`);
      const rest = src.slice(end + 2);
      const m = /^([ \t\r\n]+-)?\}\}/.exec(rest);
      if (!m) throw new TemplateError(`line ${actionLine}: comment ends with "*/" right before "}}"`);
      trimNext = m[0].includes('-');
      countLines(src.slice(j, end + 2 + m[0].length));
      i = end + 2 + m[0].length;
      continue;
    }
    const toks: Tok[] = [];
    let space = true;
    for (;;) {
      if (j >= src.length) throw new TemplateError(`line ${actionLine}: unclosed action`);
      const c = src[j]!;
      if (c === ' ' || c === '\t' || c === '\r' || c === '\n') {
        if (c === '\n') line++;
        // " -}}" closes with a trim.
        if (src[j + 1] === '-' && src.startsWith('}}', j + 2)) {
          trimNext = true;
          j += 4;
          break;
        }
        space = true;
        j++;
        continue;
      }
      if (src.startsWith('}}', j)) {
        j += 2;
        break;
      }
      const rest = src.slice(j, j + 4096);
      if (c === '"') {
        let k = j + 1;
        while (k < src.length && src[k] !== '"' && src[k] !== '\n') k += src[k] === '\\' ? 2 : 1;
        if (src[k] !== '"') throw new TemplateError(`line ${line}: unterminated quoted string`);
        toks.push({ k: 'str', v: unquoteGo(src.slice(j + 1, k), line), space });
        j = k + 1;
      } else if (c === '`') {
        const k = src.indexOf('`', j + 1);
        if (k < 0) throw new TemplateError(`line ${line}: unterminated raw quoted string`);
        countLines(src.slice(j, k));
        toks.push({ k: 'str', v: src.slice(j + 1, k), space });
        j = k + 1;
      } else if (c === "'") {
        throw new TemplateError(`line ${line}: character constants are not supported`);
      } else if (/[0-9]/.test(c) || ((c === '-' || c === '+') && /[0-9]/.test(src[j + 1] ?? ''))) {
        const m = /^[+-]?(0[xX][0-9a-fA-F]+|\d+(\.\d+)?([eE][+-]?\d+)?)/.exec(rest)!;
        toks.push({ k: 'num', v: Number(m[0]), space });
        j += m[0].length;
      } else if (c === '$') {
        const m = /^\$[A-Za-z0-9_]*/.exec(rest)!;
        const chain = FIELD_CHAIN.exec(rest.slice(m[0].length));
        toks.push({ k: 'var', name: m[0], path: chain ? chain[0].slice(1).split('.') : [], space });
        j += m[0].length + (chain ? chain[0].length : 0);
      } else if (c === '.') {
        const chain = FIELD_CHAIN.exec(rest);
        if (chain) {
          toks.push({ k: 'field', path: chain[0].slice(1).split('.'), space });
          j += chain[0].length;
        } else {
          toks.push({ k: 'field', path: [], space });
          j++;
        }
      } else if (src.startsWith(':=', j)) {
        toks.push({ k: 'p', v: ':=', space });
        j += 2;
      } else if (c === '(' || c === ')' || c === '|' || c === '=' || c === ',') {
        toks.push({ k: 'p', v: c, space });
        j++;
      } else if (IDENT.test(rest)) {
        const m = IDENT.exec(rest)!;
        toks.push({ k: 'ident', v: m[0], space });
        j += m[0].length;
      } else {
        throw new TemplateError(`line ${line}: unexpected "${c}" in action`);
      }
      space = false;
    }
    pieces.push({ kind: 'action', action: { toks, line: actionLine } });
    i = j;
  }
  return pieces;
}

/** Functions that templates may call: Go's, KWOK's and the sprig ones listed above. */
export const TEMPLATE_FUNCTIONS: ReadonlySet<string> = new Set([
  'and', 'or', 'not', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'len', 'index', 'print', 'printf', 'println',
  'Now', 'StartTime', 'Quote', 'YAML', 'Version', 'NodeConditions', 'NodeIP', 'NodeName', 'NodePort', 'PodIP',
  'NodeIPWith', 'NodeIPsWith', 'PodIPWith', 'PodIPsWith',
  'dict', 'list', 'default', 'empty', 'coalesce', 'hasKey', 'ternary', 'add', 'add1', 'sub', 'mul', 'div', 'mod',
  'max', 'min', 'int', 'toString', 'toJson', 'upper', 'lower', 'trim',
]);

const KEYWORDS = new Set(['if', 'else', 'end', 'range', 'with', 'break', 'continue', 'define', 'template', 'block']);

class TemplateParser {
  private p = 0;
  /** Declared variables, innermost scope last. */
  private scopes: Set<string>[] = [new Set(['$'])];
  private rangeDepth = 0;
  private depth = 0;

  constructor(private readonly pieces: Piece[]) {}

  parse(): Node[] {
    const { nodes, stop } = this.list();
    if (stop) throw new TemplateError(`line ${stop.line}: unexpected {{${stop.word}}}`);
    return nodes;
  }

  private declared(name: string): boolean {
    return this.scopes.some((s) => s.has(name));
  }

  /** Nodes up to an `end` or `else` (returned as the stop), or the end of input. */
  private list(): { nodes: Node[]; stop?: { word: 'end' | 'else'; action: Action; line: number } } {
    const nodes: Node[] = [];
    while (this.p < this.pieces.length) {
      const piece = this.pieces[this.p++]!;
      if (piece.kind === 'text') {
        nodes.push({ t: 'text', text: piece.text });
        continue;
      }
      const { toks, line } = piece.action;
      const first = toks[0];
      if (!first) throw new TemplateError(`line ${line}: missing value for command`);
      const word = first.k === 'ident' && KEYWORDS.has(first.v) ? first.v : undefined;
      if (word === 'end' || word === 'else') return { nodes, stop: { word, action: piece.action, line } };
      if (word === 'define' || word === 'template' || word === 'block') throw new TemplateError(`line ${line}: {{${word}}} is not supported`);
      if (word === 'break' || word === 'continue') {
        if (toks.length !== 1) throw new TemplateError(`line ${line}: {{${word}}} takes no arguments`);
        if (this.rangeDepth === 0) throw new TemplateError(`line ${line}: {{${word}}} outside {{range}}`);
        nodes.push({ t: word });
        continue;
      }
      if (word === 'if' || word === 'with' || word === 'range') {
        nodes.push(this.control(word, toks.slice(1), line));
        continue;
      }
      const pipe = this.pipeline(toks, line, 'action');
      nodes.push({ t: 'out', pipe });
    }
    return { nodes };
  }

  private control(word: 'if' | 'with' | 'range', toks: Tok[], line: number): Node {
    if (++this.depth > MAX_NESTING) throw new TemplateError(`line ${line}: nested more than ${MAX_NESTING} deep`);
    // The pipeline's variables reach to this control's {{end}}, its {{else}} included.
    this.scopes.push(new Set());
    const pipe = this.pipeline(toks, line, word);
    if (word === 'range') this.rangeDepth++;
    const body = this.scoped(() => this.list());
    if (word === 'range') this.rangeDepth--;
    if (!body.stop) throw new TemplateError(`line ${line}: unexpected EOF in {{${word}}}`);
    let elseNodes: Node[] | undefined;
    if (body.stop.word === 'else') {
      const rest = body.stop.action.toks.slice(1);
      const chained = rest[0];
      if (chained) {
        // `{{else if p}}` / `{{else with p}}`: a nested control that shares this one's {{end}}.
        if (word === 'range' || chained.k !== 'ident' || (chained.v !== 'if' && chained.v !== 'with')) {
          throw new TemplateError(`line ${body.stop.line}: unexpected tokens after {{else}}`);
        }
        const stopLine = body.stop.line;
        elseNodes = [this.scoped(() => this.control(chained.v as 'if' | 'with', rest.slice(1), stopLine))];
      } else {
        const tail = this.scoped(() => this.list());
        if (!tail.stop || tail.stop.word !== 'end') throw new TemplateError(`line ${line}: expected {{end}} for {{${word}}}`);
        if (tail.stop.action.toks.length !== 1) throw new TemplateError(`line ${tail.stop.line}: unexpected tokens after {{end}}`);
        elseNodes = tail.nodes;
      }
    } else if (body.stop.action.toks.length !== 1) {
      throw new TemplateError(`line ${body.stop.line}: unexpected tokens after {{end}}`);
    }
    this.scopes.pop();
    this.depth--;
    return this.finish(word, pipe, body.nodes, elseNodes);
  }

  private scoped<T>(fn: () => T): T {
    this.scopes.push(new Set());
    try {
      return fn();
    } finally {
      this.scopes.pop();
    }
  }

  private finish(word: 'if' | 'with' | 'range', pipe: Pipe, body: Node[], elseNodes: Node[] | undefined): Node {
    if (word === 'range') return { t: 'range', pipe, body, ...(elseNodes ? { else: elseNodes } : {}) };
    return { t: word, pipe, then: body, ...(elseNodes ? { else: elseNodes } : {}) };
  }

  /** `[$a [, $b] (:= | =)] cmd (| cmd)*`; control pipelines declare into the scope just pushed. */
  private pipeline(toks: Tok[], line: number, context: 'action' | 'if' | 'with' | 'range' | 'paren'): Pipe {
    let i = 0;
    const vars: string[] = [];
    let assign = false;
    // Declarations: `$x :=`, `$x =`, and in range `$i, $e :=`.
    const isDecl = (k: number): boolean => {
      const t = toks[k];
      const n = toks[k + 1];
      if (t?.k !== 'var' || t.path.length > 0) return false;
      if (n?.k === 'p' && (n.v === ':=' || n.v === '=')) return true;
      return context === 'range' && n?.k === 'p' && n.v === ',' && toks[k + 2]?.k === 'var' && toks[k + 3]?.k === 'p' && (toks[k + 3] as { v: string }).v === ':=';
    };
    if (context !== 'paren' && isDecl(0)) {
      const v1 = toks[0] as { name: string };
      if (toks[1]!.k === 'p' && (toks[1] as { v: string }).v === ',') {
        vars.push(v1.name, (toks[2] as { name: string }).name);
        i = 4;
      } else {
        vars.push(v1.name);
        assign = (toks[1] as { v: string }).v === '=';
        i = 2;
      }
      for (const v of vars) {
        if (v === '$') throw new TemplateError(`line ${line}: cannot declare $`);
        if (assign) {
          if (!this.declared(v)) throw new TemplateError(`line ${line}: undefined variable "${v}"`);
        }
      }
    }
    const cmds: Command[] = [];
    let args: Operand[] = [];
    const endCmd = (): void => {
      if (args.length === 0) throw new TemplateError(`line ${line}: missing value for command`);
      cmds.push({ args });
      args = [];
    };
    while (i < toks.length) {
      const t = toks[i++]!;
      if (t.k === 'p' && t.v === '|') {
        endCmd();
        continue;
      }
      if (t.k === 'p' && t.v === '(') {
        // Find the matching parenthesis.
        let level = 1;
        let k = i;
        for (; k < toks.length; k++) {
          const u = toks[k]!;
          if (u.k === 'p' && u.v === '(') level++;
          if (u.k === 'p' && u.v === ')' && --level === 0) break;
        }
        if (k >= toks.length) throw new TemplateError(`line ${line}: unclosed left paren`);
        if (++this.depth > MAX_NESTING) throw new TemplateError(`line ${line}: nested more than ${MAX_NESTING} deep`);
        const inner = this.pipeline(toks.slice(i, k), line, 'paren');
        this.depth--;
        i = k + 1;
        const after = toks[i];
        let path: string[] = [];
        if (after && after.k === 'field' && !after.space && after.path.length > 0) {
          path = after.path;
          i++;
        }
        args.push({ t: 'sub', pipe: inner, path });
        continue;
      }
      if (t.k === 'p') throw new TemplateError(`line ${line}: unexpected "${t.v}" in command`);
      args.push(this.operand(t, line));
    }
    endCmd();
    // A command that is not a function call is one operand and takes no piped value.
    cmds.forEach((c, n) => {
      if (c.args[0]!.t === 'func') return;
      if (c.args.length > 1) throw new TemplateError(`line ${line}: ${describe(c.args[0]!)} is not a function and takes no arguments`);
      if (n > 0) throw new TemplateError(`line ${line}: cannot give an argument to ${describe(c.args[0]!)}, which is not a function`);
    });
    if (!assign) {
      // Declared after the pipeline is read: `$x := $x` refers to an outer $x.
      for (const v of vars) this.scopes[this.scopes.length - 1]!.add(v);
    }
    return { vars, assign, cmds, line };
  }

  private operand(t: Tok, line: number): Operand {
    switch (t.k) {
      case 'field':
        return { t: 'field', path: t.path };
      case 'var':
        if (!this.declared(t.name)) throw new TemplateError(`line ${line}: undefined variable "${t.name}"`);
        return { t: 'var', name: t.name, path: t.path };
      case 'str':
        return { t: 'lit', value: t.v };
      case 'num':
        return { t: 'lit', value: t.v };
      case 'ident':
        if (t.v === 'true' || t.v === 'false') return { t: 'lit', value: t.v === 'true' };
        if (t.v === 'nil') return { t: 'lit', value: null };
        if (KEYWORDS.has(t.v)) throw new TemplateError(`line ${line}: unexpected {{${t.v}}} in command`);
        if (!TEMPLATE_FUNCTIONS.has(t.v)) throw new TemplateError(`line ${line}: function "${t.v}" is not supported`);
        return { t: 'func', name: t.v };
      default:
        throw new TemplateError(`line ${line}: unexpected token`);
    }
  }
}

function describe(o: Operand): string {
  switch (o.t) {
    case 'field':
      return o.path.length ? `.${o.path.join('.')}` : 'dot';
    case 'var':
      return o.name + (o.path.length ? `.${o.path.join('.')}` : '');
    case 'lit':
      return JSON.stringify(o.value);
    default:
      return 'a value';
  }
}

// ---------------------------------------------------------------------------------------
// Rendering

export interface Template {
  readonly source: string;
  /** Renders with `data` as dot; throws RenderError. */
  render(data: unknown, env: TemplateEnv): string;
}

interface State {
  dot: unknown;
  root: unknown;
  vars: { name: string; value: unknown }[];
  out: string[];
  size: number;
  steps: number;
  env: TemplateEnv;
}

type Flow = 'break' | 'continue' | undefined;

function tick(st: State): void {
  if (++st.steps > MAX_STEPS) throw new RenderError(`more than ${MAX_STEPS} steps`);
}

function write(st: State, s: string): void {
  st.size += s.length;
  if (st.size > MAX_OUTPUT) throw new RenderError(`output larger than ${MAX_OUTPUT} bytes`);
  st.out.push(s);
}

/** Go's truth: false, 0, nil, and empty strings, lists and maps are false. */
export function truth(v: unknown): boolean {
  if (v === null || v === undefined || v === false) return false;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'bigint') return v !== 0n;
  if (typeof v === 'string') return v.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (isPlainObject(v)) return Object.keys(v).length > 0;
  return true;
}

function member(v: unknown, name: string): unknown {
  return isPlainObject(v) ? getOwn(v, name) : undefined;
}

function walk(v: unknown, path: string[]): unknown {
  let cur = v;
  for (const p of path) cur = member(cur, p);
  return cur;
}

/** Go's `%v` of a JSON value. */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<no value>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map((x) => (x === null || x === undefined ? '<nil>' : goValue(x))).join(' ')}]`;
  if (isPlainObject(v)) {
    return `map[${Object.keys(v)
      .sort()
      .map((k) => {
        const x = getOwn(v, k);
        return `${k}:${x === null || x === undefined ? '<nil>' : goValue(x)}`;
      })
      .join(' ')}]`;
  }
  return String(v);
}

function num(v: unknown, fn: string): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' && /^[+-]?\d+(\.\d+)?$/.test(v.trim())) return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v === null || v === undefined) return 0;
  throw new RenderError(`${fn}: cannot use ${goValue(v)} as a number`);
}

/** sprig's integer arithmetic (cast.ToInt64): truncated toward zero. */
function int(v: unknown, fn: string): number {
  return Math.trunc(num(v, fn));
}

function str(v: unknown): string {
  return v === null || v === undefined ? '' : typeof v === 'string' ? v : goValue(v);
}

function compareOrdered(a: unknown, b: unknown, fn: string): number {
  const na = typeof a === 'number' || typeof a === 'bigint';
  const nb = typeof b === 'number' || typeof b === 'bigint';
  if (na && nb) return Number(a) - Number(b);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  throw new RenderError(`${fn}: incompatible types for comparison`);
}

/** Go's json.Marshal of a string-like value, then strconv.Quote when it is not a string (KWOK's Quote). */
function quote(v: unknown): string {
  const json = JSON.stringify(v === undefined ? null : typeof v === 'bigint' ? Number(v) : v) ?? 'null';
  if (json.startsWith('"')) return json;
  return JSON.stringify(json);
}

/** KWOK's YAML: the value as YAML (keys sorted), indented by `2 * indent` spaces after a line break. */
function toYaml(v: unknown, indent: unknown): string {
  let data = stringifyYaml(v === undefined ? null : v, { sortMapEntries: true, lineWidth: 0 });
  const n = indent === undefined ? 0 : int(indent, 'YAML');
  if (n > 0) {
    const pad = ' '.repeat(Math.min(n, 100) * 2);
    data = `\n${data}`.replaceAll('\n', `\n${pad}`);
  }
  return data;
}

function sprintf(format: string, args: unknown[]): string {
  let out = '';
  let a = 0;
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    if (c !== '%') {
      out += c;
      continue;
    }
    const m = /^[-+# 0]*(\d+)?(\.\d+)?([a-zA-Z%])/.exec(format.slice(i + 1));
    if (!m) {
      out += '%!(NOVERB)';
      break;
    }
    i += m[0].length;
    const verb = m[3]!;
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (a >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    const v = args[a++];
    switch (verb) {
      case 's':
      case 'v':
        out += v === null || v === undefined ? '<nil>' : goValue(v);
        break;
      case 'd':
        out += typeof v === 'number' || typeof v === 'bigint' ? String(typeof v === 'number' ? Math.trunc(v) : v) : `%!d(${goValue(v)})`;
        break;
      case 'q':
        out += JSON.stringify(str(v));
        break;
      case 't':
        out += typeof v === 'boolean' ? String(v) : `%!t(${goValue(v)})`;
        break;
      case 'f':
        out += typeof v === 'number' ? v.toFixed(m[2] ? Number(m[2].slice(1)) : 6) : `%!f(${goValue(v)})`;
        break;
      case 'x':
        out += typeof v === 'number' ? Math.trunc(v).toString(16) : Buffer.from(str(v)).toString('hex');
        break;
      default:
        out += `%!${verb}(${goValue(v)})`;
    }
  }
  if (a < args.length) out += `%!(EXTRA ${args.slice(a).map(goValue).join(', ')})`;
  return out;
}

function arity(name: string, args: unknown[], min: number, max = min): void {
  if (args.length < min || args.length > max) {
    throw new RenderError(`wrong number of args for ${name}: want ${min === max ? min : `${min} to ${max}`} got ${args.length}`);
  }
}

function bool(v: unknown): boolean {
  return v === true || v === 'true';
}

function callFunction(name: string, args: unknown[], st: State): unknown {
  const env = st.env;
  switch (name) {
    case 'not':
      arity(name, args, 1);
      return !truth(args[0]);
    case 'eq':
      if (args.length < 2) arity(name, args, 2, Infinity);
      return args.slice(1).some((b) => jsonEqual(args[0], b));
    case 'ne':
      arity(name, args, 2);
      return !jsonEqual(args[0], args[1]);
    case 'lt':
      arity(name, args, 2);
      return compareOrdered(args[0], args[1], name) < 0;
    case 'le':
      arity(name, args, 2);
      return compareOrdered(args[0], args[1], name) <= 0;
    case 'gt':
      arity(name, args, 2);
      return compareOrdered(args[0], args[1], name) > 0;
    case 'ge':
      arity(name, args, 2);
      return compareOrdered(args[0], args[1], name) >= 0;
    case 'len': {
      arity(name, args, 1);
      const v = args[0];
      if (typeof v === 'string') return Buffer.byteLength(v);
      if (Array.isArray(v)) return v.length;
      if (isPlainObject(v)) return Object.keys(v).length;
      if (v === null || v === undefined) return 0;
      throw new RenderError(`len of ${goValue(v)}`);
    }
    case 'index': {
      if (args.length < 1) arity(name, args, 1, Infinity);
      let cur = args[0];
      for (const k of args.slice(1)) {
        if (Array.isArray(cur)) cur = cur[int(k, name)];
        else if (isPlainObject(cur)) cur = getOwn(cur, str(k));
        else cur = undefined;
      }
      return cur;
    }
    case 'print':
      return args.map((v, i) => (i > 0 && typeof v !== 'string' && typeof args[i - 1] !== 'string' ? ' ' : '') + (v === null || v === undefined ? '<nil>' : goValue(v))).join('');
    case 'println':
      return `${args.map((v) => (v === null || v === undefined ? '<nil>' : goValue(v))).join(' ')}\n`;
    case 'printf':
      if (args.length < 1) arity(name, args, 1, Infinity);
      return sprintf(str(args[0]), args.slice(1));
    // KWOK's
    case 'Now':
      arity(name, args, 0);
      return rfc3339Of(env.now());
    case 'StartTime':
      arity(name, args, 0);
      return rfc3339Of(env.startTime());
    case 'Version':
      arity(name, args, 0);
      return env.version();
    case 'Quote':
      arity(name, args, 1);
      return quote(args[0]);
    case 'YAML':
      arity(name, args, 1, 2);
      return toYaml(args[0], args[1]);
    case 'NodeConditions':
      arity(name, args, 0);
      return env.nodeConditions();
    case 'NodeIP':
      arity(name, args, 0);
      return env.nodeIP();
    case 'NodeName':
      arity(name, args, 0);
      return env.nodeName();
    case 'NodePort':
      arity(name, args, 0);
      return env.nodePort();
    case 'PodIP':
      arity(name, args, 0);
      return env.podIP();
    case 'NodeIPWith':
      arity(name, args, 1);
      return env.nodeIPWith(str(args[0]));
    case 'NodeIPsWith':
      arity(name, args, 1);
      return env.nodeIPsWith(str(args[0]));
    case 'PodIPWith':
      arity(name, args, 5);
      return env.podIPWith(str(args[0]), bool(args[1]), str(args[2]), str(args[3]), str(args[4]));
    case 'PodIPsWith':
      arity(name, args, 5);
      return env.podIPsWith(str(args[0]), bool(args[1]), str(args[2]), str(args[3]), str(args[4]));
    // sprig's
    case 'dict': {
      const out: Record<string, unknown> = {};
      for (let i = 0; i < args.length; i += 2) setOwn(out, str(args[i]), i + 1 < args.length ? args[i + 1] : '');
      return out;
    }
    case 'list':
      return [...args];
    case 'default':
      arity(name, args, 1, 2);
      return args.length === 2 && truth(args[1]) ? args[1] : args[0];
    case 'empty':
      arity(name, args, 1);
      return !truth(args[0]);
    case 'coalesce':
      return args.find(truth) ?? null;
    case 'hasKey':
      arity(name, args, 2);
      return isPlainObject(args[0]) && Object.hasOwn(args[0], str(args[1]));
    case 'ternary':
      arity(name, args, 3);
      return truth(args[2]) ? args[0] : args[1];
    case 'add':
      return args.reduce<number>((s, v) => s + int(v, name), 0);
    case 'add1':
      arity(name, args, 1);
      return int(args[0], name) + 1;
    case 'sub':
      arity(name, args, 2);
      return int(args[0], name) - int(args[1], name);
    case 'mul':
      return args.reduce<number>((s, v) => s * int(v, name), 1);
    case 'div':
    case 'mod': {
      arity(name, args, 2);
      const d = int(args[1], name);
      if (d === 0) throw new RenderError(`${name}: division by zero`);
      const n = int(args[0], name);
      return name === 'div' ? Math.trunc(n / d) : n % d;
    }
    case 'max':
    case 'min':
      if (args.length < 1) arity(name, args, 1, Infinity);
      return args.map((v) => int(v, name)).reduce((a, b) => (name === 'max' ? Math.max(a, b) : Math.min(a, b)));
    case 'int':
      arity(name, args, 1);
      return int(args[0], name);
    case 'toString':
      arity(name, args, 1);
      return str(args[0]);
    case 'toJson':
      arity(name, args, 1);
      return JSON.stringify(args[0] ?? null, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
    case 'upper':
      arity(name, args, 1);
      return str(args[0]).toUpperCase();
    case 'lower':
      arity(name, args, 1);
      return str(args[0]).toLowerCase();
    case 'trim':
      arity(name, args, 1);
      return str(args[0]).trim();
    default:
      throw new RenderError(`function "${name}" is not supported`);
  }
}

function rfc3339Of(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function lookupVar(st: State, name: string): unknown {
  if (name === '$') return st.root;
  for (let i = st.vars.length - 1; i >= 0; i--) if (st.vars[i]!.name === name) return st.vars[i]!.value;
  throw new RenderError(`undefined variable "${name}"`);
}

function evalOperand(o: Operand, st: State): unknown {
  switch (o.t) {
    case 'field':
      return walk(st.dot, o.path);
    case 'var':
      return walk(lookupVar(st, o.name), o.path);
    case 'lit':
      return o.value;
    case 'sub':
      return walk(evalPipe(o.pipe, st), o.path);
    case 'func':
      return callFunction(o.name, [], st);
  }
}

function evalCommand(c: Command, st: State, piped: { value: unknown } | undefined): unknown {
  tick(st);
  const head = c.args[0]!;
  if (head.t !== 'func') return evalOperand(head, st);
  const rest = c.args.slice(1);
  // and/or stop at the first argument that decides (Go evaluates them lazily).
  if (head.name === 'and' || head.name === 'or') {
    const thunks: (() => unknown)[] = rest.map((o) => () => evalOperand(o, st));
    if (piped) thunks.push(() => piped.value);
    if (thunks.length < 1) throw new RenderError(`wrong number of args for ${head.name}: want at least 1 got 0`);
    let v: unknown;
    for (const t of thunks) {
      v = t();
      if (head.name === 'and' ? !truth(v) : truth(v)) return v;
    }
    return v;
  }
  const args = rest.map((o) => evalOperand(o, st));
  if (piped) args.push(piped.value);
  return callFunction(head.name, args, st);
}

function evalPipe(p: Pipe, st: State): unknown {
  let value: { value: unknown } | undefined;
  for (const c of p.cmds) value = { value: evalCommand(c, st, value) };
  const v = value!.value;
  if (p.vars.length === 1 && !p.assign) st.vars.push({ name: p.vars[0]!, value: v });
  else if (p.assign) {
    const name = p.vars[0]!;
    const slot = [...st.vars].reverse().find((x) => x.name === name);
    if (!slot) throw new RenderError(`undefined variable "${name}"`);
    slot.value = v;
  }
  return v;
}

function execList(nodes: Node[], st: State): Flow {
  for (const n of nodes) {
    tick(st);
    switch (n.t) {
      case 'text':
        write(st, n.text);
        break;
      case 'out': {
        const v = evalPipe(n.pipe, st);
        if (n.pipe.vars.length === 0) write(st, goValue(v));
        break;
      }
      case 'break':
      case 'continue':
        return n.t;
      case 'if':
      case 'with': {
        const mark = st.vars.length;
        const v = evalPipe(n.pipe, st);
        let flow: Flow;
        if (truth(v)) {
          const saved = st.dot;
          if (n.t === 'with') st.dot = v;
          flow = execList(n.then, st);
          st.dot = saved;
        } else if (n.else) {
          flow = execList(n.else, st);
        }
        st.vars.length = mark;
        if (flow) return flow;
        break;
      }
      case 'range': {
        const mark = st.vars.length;
        // The value without declaring: range declares per element.
        const v = evalPipe({ ...n.pipe, vars: [] }, st);
        const entries: [unknown, unknown][] = [];
        if (Array.isArray(v)) v.forEach((x, i) => entries.push([i, x]));
        else if (isPlainObject(v)) for (const k of Object.keys(v).sort()) entries.push([k, getOwn(v, k)]);
        else if (typeof v === 'number' && Number.isInteger(v)) for (let i = 0; i < v; i++) entries.push([i, i]);
        else if (v !== null && v !== undefined) throw new RenderError(`range can't iterate over ${goValue(v)}`);
        if (entries.length === 0) {
          if (n.else) {
            const flow = execList(n.else, st);
            st.vars.length = mark;
            if (flow) return flow;
          }
          break;
        }
        const saved = st.dot;
        for (const [k, x] of entries) {
          st.vars.length = mark;
          if (n.pipe.vars.length === 1) st.vars.push({ name: n.pipe.vars[0]!, value: x });
          if (n.pipe.vars.length === 2) st.vars.push({ name: n.pipe.vars[0]!, value: k }, { name: n.pipe.vars[1]!, value: x });
          st.dot = x;
          const flow = execList(n.body, st);
          if (flow === 'break') break;
        }
        st.dot = saved;
        st.vars.length = mark;
        break;
      }
    }
  }
  return undefined;
}

/** Parses `source`; throws TemplateError naming the line and what is not supported. */
export function compileTemplate(source: string): Template {
  if (source.length > MAX_TEMPLATE_LENGTH) throw new TemplateError(`longer than ${MAX_TEMPLATE_LENGTH} characters`);
  // KWOK trims the template's surrounding space before parsing.
  const nodes = new TemplateParser(lex(source.trim())).parse();
  return {
    source,
    render(data, env) {
      const st: State = { dot: data, root: data, vars: [], out: [], size: 0, steps: 0, env };
      execList(nodes, st);
      return st.out.join('');
    },
  };
}
