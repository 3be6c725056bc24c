// The CEL libraries Kubernetes 1.27 offers to validation rules: the standard functions, the
// string extensions of cel-go 0.12 (no `format`, no `quote`), and Kubernetes' lists, regex
// and URL libraries. (`quantity` and the authorizer come later or do not apply to CRDs.)
// Each function has the evaluator's implementation and the checker's overloads with costs.
import type { CelFunc, CelInput, CelList, CelMap, CelValue } from '@bufbuild/cel';
import type { RE2JS } from '@bufbuild/re2';
import { celExtLib, celLib, re2Lib } from './runtime.js';
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

const trav = (n: number): number => Math.ceil(0.1 * n);
const URL_T: CelT = { kind: 'url' };
const LIST_DYN = listOf(DYN);
const size = (t: CelT | undefined): number => (t ? maxSize(t) : 1);
const stringOp = (t: CelT | undefined, a: CelT[]): number => 1 + trav(size(t)) + (a[0] && (a[0].kind === 'string') ? trav(size(a[0])) : 0);
/** Kubernetes' regex cost: the text's traversal times the pattern's. */
const regexCost = (t: CelT | undefined, a: CelT[]): number => 1 + trav(size(t)) * (1 + trav(size(a[0])));
const searchCost = regexCost;
const sameString = (t: CelT | undefined): CelT => ({ kind: 'string', max: size(t) });

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
  contains: [m(STRING, [STRING], BOOL, stringOp)],
  startsWith: [m(STRING, [STRING], BOOL, stringOp)],
  endsWith: [m(STRING, [STRING], BOOL, stringOp)],
  matches: [m(STRING, [STRING], BOOL, regexCost), f([STRING, STRING], BOOL, (_t, a) => regexCost(a[0], [a[1]]))],
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
  charAt: [m(STRING, [INT], STRING, stringOp)],
  indexOf: [m(STRING, [STRING], INT, stringOp), m(STRING, [STRING, INT], INT, stringOp), m(LIST_DYN, [DYN], INT, (t) => 1 + size(t))],
  lastIndexOf: [m(STRING, [STRING], INT, stringOp), m(STRING, [STRING, INT], INT, stringOp), m(LIST_DYN, [DYN], INT, (t) => 1 + size(t))],
  lowerAscii: [m(STRING, [], sameString, stringOp)],
  upperAscii: [m(STRING, [], sameString, stringOp)],
  replace: [
    m(STRING, [STRING, STRING], (t, a) => ({ kind: 'string', max: size(t) * Math.max(1, size(a[1])) }), stringOp),
    m(STRING, [STRING, STRING, INT], (t, a) => ({ kind: 'string', max: size(t) * Math.max(1, size(a[1])) }), stringOp),
  ],
  split: [m(STRING, [STRING], (t) => listOf(sameString(t), size(t) + 1), stringOp), m(STRING, [STRING, INT], (t) => listOf(sameString(t), size(t) + 1), stringOp)],
  substring: [m(STRING, [INT], sameString, stringOp), m(STRING, [INT, INT], sameString, stringOp)],
  trim: [m(STRING, [], sameString, stringOp)],
  join: [
    m(listOf(STRING), [], (t) => ({ kind: 'string', max: size(t) * size(elemOf(t)) }), (t) => 1 + trav(size(t) * size(elemOf(t)))),
    m(listOf(STRING), [STRING], (t, a) => ({ kind: 'string', max: size(t) * (size(elemOf(t)) + size(a[0])) }), (t) => 1 + trav(size(t) * size(elemOf(t)))),
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

const regexCache = new Map<string, { anchored: RE2JS; whole: RE2JS }>();
function compileRegex(pattern: string): { anchored: RE2JS; whole: RE2JS } {
  let r = regexCache.get(pattern);
  if (!r) {
    const { RE2JS: re } = re2Lib();
    r = { anchored: re.compile(`^(?:${pattern})`), whole: re.compile(`(?:${pattern})`) };
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(pattern, r);
  }
  return r;
}

/**
 * The leftmost match at or after `from`, longest at that start (the engine answers only
 * whether a text matches, so the match is found by trying starts and ends; RE2 never
 * backtracks, so every try is linear).
 */
function findFrom(s: string, pattern: string, from: number, work: { chars: number }): [number, number] | undefined {
  const re = compileRegex(pattern);
  const spend = (n: number): void => {
    work.chars += n + 1;
    // Trying every start is quadratic on long texts that match late; stop as the per-call cost limit does.
    if (work.chars > SEARCH_WORK_LIMIT) throw new Error('operation cancelled: actual cost limit exceeded');
  };
  spend(s.length - from);
  if (!re.whole.test(s.slice(from))) return undefined;
  for (let i = from; i <= s.length; i++) {
    const rest = s.slice(i);
    spend(rest.length);
    if (!re.anchored.test(rest)) continue;
    for (let j = s.length; j >= i; j--) {
      spend(j - i);
      if (re.whole.testExact(s.slice(i, j))) return [i, j];
    }
  }
  return undefined;
}

/** Characters the regex search may scan in one call. */
export const SEARCH_WORK_LIMIT = 2_000_000;

function regexFuncs(): CelFunc[] {
  const { celMethod, CelScalar, listType } = celLib();
  return [
  celMethod('find', CelScalar.STRING, [CelScalar.STRING], CelScalar.STRING, function (this: string, pattern: string) {
    const r = findFrom(this, pattern, 0, { chars: 0 });
    return r ? this.slice(r[0], r[1]) : '';
  }),
  ...[false, true].map((limited) =>
    celMethod('findAll', CelScalar.STRING, limited ? [CelScalar.STRING, CelScalar.INT] : [CelScalar.STRING], listType(CelScalar.STRING), function (this: string, pattern: string, limit?: bigint) {
      const out: string[] = [];
      const max = limited && limit !== undefined && limit >= 0n ? Number(limit) : Infinity;
      let from = 0;
      let prevEnd = -1;
      const work = { chars: 0 };
      while (out.length < max && from <= this.length) {
        const r = findFrom(this, pattern, from, work);
        if (!r) break;
        // An empty match right after the previous match is skipped, as Go's FindAll does.
        if (r[0] === r[1] && r[0] === prevEnd) {
          from = r[0] + 1;
          continue;
        }
        out.push(this.slice(r[0], r[1]));
        prevEnd = r[1];
        from = r[1] > r[0] ? r[1] : r[1] + 1;
      }
      return out;
    }),
  ),
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

let funcs: CelFunc[] | undefined;

/** The functions added to the evaluator's standard ones (made with the library, on first use). */
export function evaluatorFunctions(): CelFunc[] {
  return (funcs ??= [...celExtLib().strings.filter((fn) => fn.name !== 'format' && fn.name !== 'strings.quote'), ...listFuncs(), ...regexFuncs(), ...urlFuncs()]);
}
