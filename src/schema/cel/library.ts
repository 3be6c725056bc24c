// The CEL libraries Kubernetes 1.27 offers to validation rules: the standard functions, the
// string extensions of cel-go 0.12 (no `format`, no `quote`), and Kubernetes' lists, regex
// and URL libraries. (`quantity` and the authorizer come later or do not apply to CRDs.)
// Each function has the evaluator's implementation and the checker's overloads with costs.
import type { CelFunc, CelInput, CelList, CelMap, CelValue } from '@bufbuild/cel';
import { compileGoPattern, matchWork, MatchTooExpensive, type GoRegexp } from '../crd/regex.js';
import { charge, COST_LIMIT_EXCEEDED, tick } from './meter.js';
import { celExtLib, celLib } from './runtime.js';
import { Substring } from './search.js';
import { BOOL, BYTES, DOUBLE, DYN, INT, STRING, TYPE, UINT, listOf, mapOf, maxSize, type CelT } from './types.js';

/** One signature the checker accepts: `target.name(args)` or `name(args)`. */
export interface Overload {
  target?: CelT;
  args: CelT[];
  result: (target: CelT | undefined, args: CelT[]) => CelT;
  /** The call's own cost (its arguments are added by the checker); 1 when absent. */
  cost?: (target: CelT | undefined, args: CelT[]) => number;
  /** Both arguments must have the same type (equality). */
  strictSame?: boolean;
}

/** cel-go's cost factors: a string is traversed at 0.1 per character, a pattern at 0.25. */
const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;
const trav = (n: number): number => Math.ceil(STRING_TRAVERSAL * n);
const URL_T: CelT = { kind: 'url' };
const LIST_DYN = listOf(DYN);
const size = (t: CelT | undefined): number => (t ? maxSize(t) : 1);
/** A traversal of the target (Kubernetes' lowerAscii, upperAscii, substring, trim). */
const traversal = (t: CelT | undefined): number => trav(size(t));
/** A traversal and the construction of a result of about the same size (replace, split). */
const traversalAndResult = (t: CelT | undefined): number => Math.ceil(2 * STRING_TRAVERSAL * size(t));
/** The text's traversal (one more character, so an empty text still costs) times the pattern's length. */
const regexCost = (text: CelT | undefined, pattern: CelT | undefined): number => Math.ceil(STRING_TRAVERSAL * (size(text) + 1)) * Math.ceil(REGEX_LENGTH * size(pattern));
const searchCost = (t: CelT | undefined, a: CelT[]): number => regexCost(t, a[0]);
const sameString = (t: CelT | undefined): CelT => ({ kind: 'string', max: size(t) });

/** Kubernetes' bound on what `replace` returns: the most replacements times the longest replacement, plus what is kept. */
function replaceResult(t: CelT | undefined, a: CelT[]): CelT {
  const n = size(t);
  // Only a literal has a known shortest length; any other string may be empty.
  const fromMin = a[0]?.kind === 'string' ? (a[0].min ?? 0) : 0;
  const to = size(a[1]);
  let count: number;
  let kept: number;
  if (fromMin === 0) {
    count = n + 1;
    kept = n;
  } else if (to <= fromMin) {
    count = 0;
    kept = n;
  } else {
    count = Math.ceil(n / fromMin);
    kept = 0;
  }
  return { kind: 'string', max: Math.min(Number.MAX_SAFE_INTEGER, count * to + kept) };
}

/** Kubernetes' bound on what `join` returns: every element at its longest, and the separators. */
function joinResult(t: CelT | undefined, a: CelT[]): CelT {
  const n = size(t);
  const sep = a[0] ? size(a[0]) : 0;
  return { kind: 'string', max: Math.min(Number.MAX_SAFE_INTEGER, n * size(elemOf(t)) + sep * Math.max(0, n - 1)) };
}

const m = (target: CelT, args: CelT[], result: CelT | Overload['result'], cost?: Overload['cost']): Overload => ({
  target,
  args,
  result: typeof result === 'function' ? result : () => result,
  cost,
});
const f = (args: CelT[], result: CelT | Overload['result'], cost?: Overload['cost']): Overload => ({
  args,
  result: typeof result === 'function' ? result : () => result,
  cost,
});
const elemOf = (t: CelT | undefined): CelT => (t && t.kind === 'list' ? t.elem : DYN);
const TS: CelT = { kind: 'timestamp' };
const DUR: CelT = { kind: 'duration' };

/** The checker's view of every function and method rules may call. */
export const LIBRARY: Record<string, Overload[]> = {
  size: [
    f([STRING], INT), f([BYTES], INT), f([LIST_DYN], INT), f([mapOf(DYN, DYN)], INT),
    m(STRING, [], INT), m(BYTES, [], INT), m(LIST_DYN, [], INT), m(mapOf(DYN, DYN), [], INT),
  ],
  // cel-go's: a search costs the text's traversal times the substring's; a prefix, the prefix's.
  contains: [m(STRING, [STRING], BOOL, (t, a) => traversal(t) * traversal(a[0]))],
  startsWith: [m(STRING, [STRING], BOOL, (_t, a) => traversal(a[0]))],
  endsWith: [m(STRING, [STRING], BOOL, (_t, a) => traversal(a[0]))],
  matches: [m(STRING, [STRING], BOOL, searchCost), f([STRING, STRING], BOOL, (_t, a) => regexCost(a[0], a[1]))],
  int: [f([INT], INT), f([UINT], INT), f([DOUBLE], INT), f([STRING], INT), f([TS], INT)],
  uint: [f([INT], UINT), f([UINT], UINT), f([DOUBLE], UINT), f([STRING], UINT)],
  double: [f([INT], DOUBLE), f([UINT], DOUBLE), f([DOUBLE], DOUBLE), f([STRING], DOUBLE)],
  string: [f([DYN], STRING)],
  bytes: [f([STRING], BYTES), f([BYTES], BYTES)],
  bool: [f([BOOL], BOOL), f([STRING], BOOL)],
  dyn: [f([DYN], (_t, a) => ({ kind: 'dyn', max: size(a[0]) }))],
  type: [f([DYN], TYPE)],
  duration: [f([STRING], DUR)],
  timestamp: [f([STRING], TS)],
  ...Object.fromEntries(
    ['getFullYear', 'getMonth', 'getDayOfYear', 'getDayOfMonth', 'getDate', 'getDayOfWeek', 'getHours', 'getMinutes', 'getSeconds', 'getMilliseconds'].map((n) => [
      n,
      [m(TS, [], INT), m(TS, [STRING], INT), m(DUR, [], INT)],
    ]),
  ),
  // string extensions
  charAt: [m(STRING, [INT], STRING)],
  indexOf: [m(STRING, [STRING], INT, traversal), m(STRING, [STRING, INT], INT, traversal), m(LIST_DYN, [DYN], INT, (t) => 1 + size(t))],
  lastIndexOf: [m(STRING, [STRING], INT, traversal), m(STRING, [STRING, INT], INT, traversal), m(LIST_DYN, [DYN], INT, (t) => 1 + size(t))],
  lowerAscii: [m(STRING, [], sameString, traversal)],
  upperAscii: [m(STRING, [], sameString, traversal)],
  replace: [m(STRING, [STRING, STRING], replaceResult, traversalAndResult), m(STRING, [STRING, STRING, INT], replaceResult, traversalAndResult)],
  split: [m(STRING, [STRING], (t) => listOf(sameString(t), size(t) + 1), traversalAndResult), m(STRING, [STRING, INT], (t) => listOf(sameString(t), size(t) + 1), traversalAndResult)],
  substring: [m(STRING, [INT], sameString, traversal), m(STRING, [INT, INT], sameString, traversal)],
  trim: [m(STRING, [], sameString, traversal)],
  join: [
    m(listOf(STRING), [], joinResult, (t, a) => trav(size(joinResult(t, a)))),
    m(listOf(STRING), [STRING], joinResult, (t, a) => trav(size(joinResult(t, a)))),
  ],
  // Kubernetes lists library
  isSorted: [m(LIST_DYN, [], BOOL, (t) => 1 + size(t))],
  sum: [m(LIST_DYN, [], (t) => (elemOf(t).kind === 'dyn' ? DYN : elemOf(t)), (t) => 1 + size(t))],
  min: [m(LIST_DYN, [], (t) => elemOf(t), (t) => 1 + size(t))],
  max: [m(LIST_DYN, [], (t) => elemOf(t), (t) => 1 + size(t))],
  // Kubernetes regex library
  find: [m(STRING, [STRING], sameString, searchCost)],
  findAll: [m(STRING, [STRING], (t) => listOf(sameString(t), size(t)), searchCost), m(STRING, [STRING, INT], (t) => listOf(sameString(t), size(t)), searchCost)],
  // Kubernetes URL library
  url: [f([STRING], URL_T, (_t, a) => 1 + trav(size(a[0])))],
  isURL: [f([STRING], BOOL, (_t, a) => 1 + trav(size(a[0])))],
  getScheme: [m(URL_T, [], STRING)],
  getHost: [m(URL_T, [], STRING)],
  getHostname: [m(URL_T, [], STRING)],
  getPort: [m(URL_T, [], STRING)],
  getEscapedPath: [m(URL_T, [], STRING)],
  getQuery: [m(URL_T, [], mapOf(STRING, listOf(STRING)))],
};

// --- evaluator implementations ---


function compare(a: CelValue, b: CelValue): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  throw new Error('no such overload');
}

function items(list: CelList): CelValue[] {
  return [...list];
}

function equalValues(a: CelValue, b: CelValue): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return a === b;
  if (celLib().isCelList(a) && celLib().isCelList(b)) {
    if (a.size !== b.size) return false;
    for (let i = 0; i < a.size; i++) if (!equalValues(a.get(i) as CelValue, b.get(i) as CelValue)) return false;
    return true;
  }
  return a === b;
}

function listFuncs(): CelFunc[] {
  const { celMethod, CelScalar, listType } = celLib();
  const DYN_T = CelScalar.DYN;
  const LIST = listType(DYN_T);
  return [
  celMethod('isSorted', LIST, [], CelScalar.BOOL, function (this: CelList) {
    const xs = items(this);
    for (let i = 1; i < xs.length; i++) if (compare(xs[i - 1], xs[i]) > 0) return false;
    return true;
  }),
  celMethod('sum', LIST, [], DYN_T, function (this: CelList) {
    const xs = items(this);
    if (xs.length === 0) return 0n;
    if (xs.every((x) => typeof x === 'bigint')) {
      let s = 0n;
      for (const x of xs as bigint[]) s += x;
      if (s > 9223372036854775807n || s < -9223372036854775808n) throw new Error('integer overflow');
      return s;
    }
    if (xs.every((x) => typeof x === 'number')) return (xs as number[]).reduce((a, b) => a + b, 0);
    throw new Error('no such overload');
  }),
  celMethod('min', LIST, [], DYN_T, function (this: CelList) {
    const xs = items(this);
    if (xs.length === 0) throw new Error('min(list) argument must not be empty');
    return xs.reduce((a, b) => (compare(b, a) < 0 ? b : a)) as CelInput;
  }),
  celMethod('max', LIST, [], DYN_T, function (this: CelList) {
    const xs = items(this);
    if (xs.length === 0) throw new Error('max(list) argument must not be empty');
    return xs.reduce((a, b) => (compare(b, a) > 0 ? b : a)) as CelInput;
  }),
  celMethod('indexOf', LIST, [DYN_T], CelScalar.INT, function (this: CelList, v: CelValue) {
    const xs = items(this);
    return BigInt(xs.findIndex((x) => equalValues(x, v)));
  }),
  celMethod('lastIndexOf', LIST, [DYN_T], CelScalar.INT, function (this: CelList, v: CelValue) {
    const xs = items(this);
    for (let i = xs.length - 1; i >= 0; i--) if (equalValues(xs[i], v)) return BigInt(i);
    return -1n;
  }),
  ];
}

/** The pattern compiled, or the evaluation error Go's regexp gives for it. */
function goRegexp(pattern: string): GoRegexp {
  const c = compileGoPattern(pattern);
  if (!c.ok) throw new Error(c.error);
  return c.regexp;
}

/**
 * Charges a search of `text` before running it: its worst-case work, one unit per step (at
 * re2js' slowest, about 100 ns: the per-call limit then holds one evaluation near 100 ms).
 */
function chargeSearch(text: string, re: GoRegexp): void {
  charge(matchWork(text.length, re.programSize));
}

function search<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof MatchTooExpensive) throw new Error(COST_LIMIT_EXCEEDED);
    throw e;
  }
}

function matches(text: string, pattern: string): boolean {
  const re = goRegexp(pattern);
  chargeSearch(text, re);
  return search(() => re.test(text));
}

function findAll(text: string, pattern: string, max: number): string[] {
  const re = goRegexp(pattern);
  return search(() => re.findAll(text, max, charge));
}

function regexFuncs(): CelFunc[] {
  const { celFunc, celMethod, CelScalar, listType } = celLib();
  return [
    // The standard library's matches, on this engine and bounded like the others.
    celMethod('matches', CelScalar.STRING, [CelScalar.STRING], CelScalar.BOOL, function (this: string, pattern: string) {
      return matches(this, pattern);
    }),
    celFunc('matches', [CelScalar.STRING, CelScalar.STRING], CelScalar.BOOL, (text: string, pattern: string) => matches(text, pattern)),
    celMethod('find', CelScalar.STRING, [CelScalar.STRING], CelScalar.STRING, function (this: string, pattern: string) {
      return findAll(this, pattern, 1)[0] ?? '';
    }),
    ...[false, true].map((limited) =>
      celMethod('findAll', CelScalar.STRING, limited ? [CelScalar.STRING, CelScalar.INT] : [CelScalar.STRING], listType(CelScalar.STRING), function (this: string, pattern: string, limit?: bigint) {
        const max = limited && limit !== undefined ? (limit < 0n ? -1 : Number(limit > BigInt(this.length + 1) ? BigInt(this.length + 1) : limit)) : -1;
        return findAll(this, pattern, max);
      }),
    ),
  ];
}

// --- strings: the extensions whose work or result can outgrow their input, or whose library
// versions differ from Go's (`replace` with a negative count, `split` with a limit) ---

/** The UTF-16 length of the code point at `i` (1 or 2). */
function widthAt(s: string, i: number): number {
  const cp = s.codePointAt(i);
  return cp !== undefined && cp > 0xffff ? 2 : 1;
}

/** How many times Go's strings.Replace would replace `from` in `s`, at most `n` (all when negative). */
function replaceCount(s: string, from: string, n: number): number {
  let count = 0;
  if (from === '') {
    // Before every code point and at the end.
    for (let i = 0; i < s.length && (n < 0 || count < n); i += widthAt(s, i)) count++;
    return n < 0 || count < n ? count + 1 : count;
  }
  const search = new Substring(from);
  for (let i = search.indexOf(s); i >= 0 && (n < 0 || count < n); i = search.indexOf(s, i + from.length)) count++;
  return count;
}

/** Go's strings.Replace; the result's size is charged before it is built. */
function replace(s: string, from: string, to: string, n: number): string {
  charge(Math.ceil(2 * STRING_TRAVERSAL * s.length));
  if (n === 0 || from === to) return s;
  const count = replaceCount(s, from, n);
  if (count === 0) return s;
  const length = s.length + count * (to.length - from.length);
  // Kubernetes charges the input's traversal; a result longer than the input costs its own.
  if (length > s.length) charge(Math.ceil(STRING_TRAVERSAL * (length - s.length)));
  const parts: string[] = [];
  const search = new Substring(from);
  let start = 0;
  for (let k = 0; k < count; k++) {
    let j: number;
    if (from === '') j = k === 0 ? start : start + widthAt(s, start);
    else j = search.indexOf(s, start);
    parts.push(s.slice(start, j), to);
    start = j + from.length;
  }
  parts.push(s.slice(start));
  return parts.join('');
}

/** Go's strings.SplitN: at most `n` parts (all when negative), the last holding the rest. */
function splitN(s: string, sep: string, n: number): string[] {
  charge(Math.ceil(2 * STRING_TRAVERSAL * s.length));
  if (n === 0) return [];
  const out: string[] = [];
  if (sep === '') {
    let i = 0;
    while (i < s.length && (n < 0 || out.length < n - 1)) {
      const w = widthAt(s, i);
      out.push(s.slice(i, i + w));
      i += w;
    }
    if (i < s.length) out.push(s.slice(i));
    return out;
  }
  const search = new Substring(sep);
  let start = 0;
  for (let j = search.indexOf(s); j >= 0 && (n < 0 || out.length < n - 1); j = search.indexOf(s, start)) {
    out.push(s.slice(start, j));
    start = j + sep.length;
  }
  out.push(s.slice(start));
  return out;
}

function join(list: CelList, sep: string): string {
  const parts: string[] = [];
  let length = 0;
  for (const item of list) {
    if (typeof item !== 'string') throw new Error('invalid argument to function join: list contains non-string value');
    parts.push(item);
    length += item.length;
  }
  length += sep.length * Math.max(0, parts.length - 1);
  charge(Math.ceil(2 * STRING_TRAVERSAL * length));
  return parts.join(sep);
}

function asciiCase(s: string, upper: boolean): string {
  charge(Math.ceil(STRING_TRAVERSAL * s.length));
  return upper ? s.replace(/[a-z]+/g, (m) => m.toUpperCase()) : s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

function outOfBounds(i: number, length: number): Error {
  return new Error(`index ${i} out of bounds [0, ${length})`);
}

function stringFuncs(): CelFunc[] {
  const { celMethod, CelScalar, listType } = celLib();
  const { STRING, INT, BOOL } = CelScalar;
  return [
    // Searches in linear time (the engine's own can take text times pattern).
    celMethod('contains', STRING, [STRING], BOOL, function (this: string, sub: string) {
      return new Substring(sub).includes(this);
    }),
    celMethod('indexOf', STRING, [STRING], INT, function (this: string, sub: string) {
      return BigInt(new Substring(sub).indexOf(this));
    }),
    celMethod('indexOf', STRING, [STRING, INT], INT, function (this: string, sub: string, start: bigint) {
      const i = Number(start);
      if (i < 0 || i >= this.length) throw outOfBounds(i, this.length);
      return BigInt(new Substring(sub).indexOf(this, i));
    }),
    celMethod('lastIndexOf', STRING, [STRING], INT, function (this: string, sub: string) {
      return BigInt(new Substring(sub).lastIndexOf(this));
    }),
    celMethod('lastIndexOf', STRING, [STRING, INT], INT, function (this: string, sub: string, start: bigint) {
      const i = Number(start);
      if (i < 0 || i >= this.length) throw outOfBounds(i, this.length);
      return BigInt(new Substring(sub).lastIndexOf(this, i));
    }),
    celMethod('replace', STRING, [STRING, STRING], STRING, function (this: string, from: string, to: string) {
      return replace(this, from, to, -1);
    }),
    celMethod('replace', STRING, [STRING, STRING, INT], STRING, function (this: string, from: string, to: string, n: bigint) {
      return replace(this, from, to, n < 0n ? -1 : Number(n > BigInt(this.length + 1) ? BigInt(this.length + 1) : n));
    }),
    celMethod('split', STRING, [STRING], listType(STRING), function (this: string, sep: string) {
      return celLib().celList(splitN(this, sep, -1));
    }),
    celMethod('split', STRING, [STRING, INT], listType(STRING), function (this: string, sep: string, n: bigint) {
      return celLib().celList(splitN(this, sep, n < 0n ? -1 : Number(n > BigInt(this.length + 1) ? BigInt(this.length + 1) : n)));
    }),
    celMethod('join', listType(STRING), [], STRING, function (this: CelList) {
      return join(this, '');
    }),
    celMethod('join', listType(STRING), [STRING], STRING, function (this: CelList, sep: string) {
      return join(this, sep);
    }),
    celMethod('lowerAscii', STRING, [], STRING, function (this: string) {
      return asciiCase(this, false);
    }),
    celMethod('upperAscii', STRING, [], STRING, function (this: string) {
      return asciiCase(this, true);
    }),
  ];
}

/** URLs are maps the url() function made (the evaluator has no opaque types); marked here. */
const urls = new WeakSet<object>();
interface ParsedUrl {
  scheme: string;
  host: string;
  hostname: string;
  port: string;
  path: string;
  query: Map<string, string[]>;
}
const parsedUrls = new WeakMap<object, ParsedUrl>();

function parseUrl(s: string): ParsedUrl {
  // An absolute URI or an absolute path, as Go's url.ParseRequestURI accepts.
  const absPath = s.startsWith('/');
  if (!absPath && !/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s)) throw new Error(`URL parse error during conversion from string: parse "${s}": invalid URI for request`);
  let u: URL;
  try {
    u = absPath ? new URL(s, 'http://placeholder.invalid') : new URL(s);
  } catch {
    throw new Error(`URL parse error during conversion from string: parse "${s}": invalid URL`);
  }
  const query = new Map<string, string[]>();
  for (const [k, v] of u.searchParams) query.set(k, [...(query.get(k) ?? []), v]);
  const host = absPath ? '' : u.host;
  const hostname = host.startsWith('[') ? u.hostname.slice(1, -1) : absPath ? '' : u.hostname;
  const hasPath = absPath || /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*\//.test(s) || (!s.includes('//') && u.pathname !== '');
  return { scheme: absPath ? '' : u.protocol.slice(0, -1), host, hostname, port: u.port, path: hasPath ? u.pathname : '', query };
}

function urlOf(v: unknown): ParsedUrl {
  const p = typeof v === 'object' && v !== null ? parsedUrls.get(v) : undefined;
  if (!p) throw new Error('no such overload');
  return p;
}

function urlFuncs(): CelFunc[] {
  const { celFunc, celList, celMap, celMethod, CelScalar, mapType } = celLib();
  const MAP = mapType(CelScalar.DYN, CelScalar.DYN);
  return [
  celFunc('url', [CelScalar.STRING], MAP, (s: string) => {
    const p = parseUrl(s);
    const v = celMap(new Map<string, CelInput>([['url', s]]));
    urls.add(v);
    parsedUrls.set(v, p);
    return v as CelMap;
  }),
  celFunc('isURL', [CelScalar.STRING], CelScalar.BOOL, (s: string) => {
    try {
      parseUrl(s);
      return true;
    } catch {
      return false;
    }
  }),
  celMethod('getScheme', MAP, [], CelScalar.STRING, function (this: CelMap) {
    return urlOf(this).scheme;
  }),
  celMethod('getHost', MAP, [], CelScalar.STRING, function (this: CelMap) {
    return urlOf(this).host;
  }),
  celMethod('getHostname', MAP, [], CelScalar.STRING, function (this: CelMap) {
    return urlOf(this).hostname;
  }),
  celMethod('getPort', MAP, [], CelScalar.STRING, function (this: CelMap) {
    return urlOf(this).port;
  }),
  celMethod('getEscapedPath', MAP, [], CelScalar.STRING, function (this: CelMap) {
    return urlOf(this).path;
  }),
  celMethod('getQuery', MAP, [], MAP, function (this: CelMap) {
    const q = urlOf(this).query;
    return celMap(new Map([...q].map(([k, v]) => [k, celList(v)] as [string, CelInput])));
  }),
  ];
}

/** The loop condition's wrapper (see compile.ts): the condition, after a look at the meter. */
function loopFuncs(): CelFunc[] {
  const { celFunc, CelScalar } = celLib();
  return [
    celFunc('@orch_tick', [CelScalar.DYN], CelScalar.DYN, (cond: CelValue) => {
      tick();
      return cond as CelInput;
    }),
  ];
}

let funcs: CelFunc[] | undefined;

/** The functions added to the evaluator's standard ones (made with the library, on first use). */
export function evaluatorFunctions(): CelFunc[] {
  // Later functions replace earlier ones of the same signature: these come after the library's.
  return (funcs ??= [...celExtLib().strings.filter((fn) => fn.name !== 'format' && fn.name !== 'strings.quote'), ...stringFuncs(), ...listFuncs(), ...regexFuncs(), ...urlFuncs(), ...loopFuncs()]);
}
