// Type checking and cost estimation of a parsed CEL expression in one walk. The evaluator
// ships no checker, so this one covers what rules need: declared fields, known functions and
// their overloads, and the result type. Unknown shapes (dyn) pass.
//
// The cost is a bound, in the units cel-go uses (about one per operation): a call costs 1
// plus its arguments; an operation over a string, list or map costs one per ten elements
// (cel-go's traversal factor) of its operands' largest sizes; a comprehension costs its range
// plus, per element of the range's largest size, its condition and step. Sizes come from the
// types (maxLength, maxItems, maxProperties, or what a 3 MiB request can hold), so the bound
// grows with nesting the way Kubernetes' estimate does.
import type { parse } from '@bufbuild/cel';
import { BOOL, BYTES, DOUBLE, DYN, INT, NULL, STRING, TYPE, UINT, listOf, mapOf, maxSize, typeName, MAX_REQUEST_SIZE_BYTES, type CelT } from './types.js';
import { LIBRARY, type Overload } from './library.js';

/** A parsed expression node. */
export type Expr = ReturnType<typeof parse>['expr'];

export class CheckError extends Error {
  constructor(message: string, readonly exprId: bigint) {
    super(message);
  }
}

export interface Checked {
  type: CelT;
  cost: number;
}

type Scope = ReadonlyMap<string, CelT>;

const TRAVERSAL = 0.1;

function trav(n: number): number {
  return Math.ceil(TRAVERSAL * n);
}

/** A part of a dyn value: no larger than the value when its size is known (measured values). */
function within(t: CelT): CelT {
  return t.kind === 'dyn' && t.max !== undefined ? { kind: 'dyn', max: t.max } : DYN;
}

function isDyn(t: CelT): boolean {
  return t.kind === 'dyn';
}

/** Whether a value of `a` can be where `b` is expected. */
function matches(a: CelT, b: CelT): boolean {
  if (isDyn(a) || isDyn(b)) return true;
  if (a.kind !== b.kind) return false;
  if (a.kind === 'list' && b.kind === 'list') return matches(a.elem, b.elem);
  if (a.kind === 'map' && b.kind === 'map') return matches(a.key, b.key) && matches(a.value, b.value);
  return true;
}

/** The common type of two branches or elements (dyn when they differ). */
export function join(a: CelT, b: CelT): CelT {
  if (a.kind === 'list' && b.kind === 'list') return listOf(join(a.elem, b.elem), Math.max(a.max, b.max));
  if (a.kind === 'map' && b.kind === 'map') return mapOf(join(a.key, b.key), join(a.value, b.value), Math.max(a.max, b.max));
  if (a.kind === 'null') return b;
  if (b.kind === 'null') return a;
  if (a.kind === b.kind && a.kind !== 'object') return a.max === undefined && b.max === undefined ? a : ({ kind: a.kind, max: Math.max(maxSize(a), maxSize(b)) } as CelT);
  if (a.kind === 'object' && b.kind === 'object' && a === b) return a;
  return { kind: 'dyn', max: Math.max(maxSize(a), maxSize(b)) };
}

function overloadError(name: string, target: CelT | undefined, args: CelT[], id: bigint): CheckError {
  const list = `(${args.map(typeName).join(', ')})`;
  const applied = target ? `${typeName(target)}.${list}` : list;
  return new CheckError(`found no matching overload for '${name}' applied to '${applied}'`, id);
}

const OPERATORS: Record<string, Overload[]> = (() => {
  const num = [INT, UINT, DOUBLE];
  const arith = (): Overload[] => num.map((t) => ({ args: [t, t], result: () => t }));
  const cmp: Overload[] = [INT, UINT, DOUBLE, STRING, BYTES, BOOL, { kind: 'timestamp' } as CelT, { kind: 'duration' } as CelT].map((t) => ({
    args: [t, t],
    result: () => BOOL,
    cost: (_tg, a) => 1 + (t.kind === 'string' || t.kind === 'bytes' ? trav(Math.min(maxSize(a[0]), maxSize(a[1]))) : 0),
  }));
  const eq: Overload[] = [{ args: [DYN, DYN], result: () => BOOL, cost: (_t, a) => 1 + trav(Math.min(maxSize(a[0]), maxSize(a[1]))), strictSame: true }];
  return {
    '_&&_': [{ args: [BOOL, BOOL], result: () => BOOL }],
    '_||_': [{ args: [BOOL, BOOL], result: () => BOOL }],
    '!_': [{ args: [BOOL], result: () => BOOL }],
    '-_': [{ args: [INT], result: () => INT }, { args: [DOUBLE], result: () => DOUBLE }],
    '_==_': eq,
    '_!=_': eq,
    '_<_': cmp,
    '_<=_': cmp,
    '_>_': cmp,
    '_>=_': cmp,
    '_+_': [
      ...arith(),
      { args: [STRING, STRING], result: (_t, a) => ({ kind: 'string', max: maxSize(a[0]) + maxSize(a[1]) }), cost: (_t, a) => 1 + trav(maxSize(a[0]) + maxSize(a[1])) },
      { args: [BYTES, BYTES], result: (_t, a) => ({ kind: 'bytes', max: maxSize(a[0]) + maxSize(a[1]) }), cost: (_t, a) => 1 + trav(maxSize(a[0]) + maxSize(a[1])) },
      { args: [listOf(DYN), listOf(DYN)], result: (_t, a) => listOf(joinElem(a[0], a[1]), maxSize(a[0]) + maxSize(a[1])), cost: (_t, a) => 1 + trav(maxSize(a[0]) + maxSize(a[1])) },
      { args: [{ kind: 'timestamp' }, { kind: 'duration' }], result: () => ({ kind: 'timestamp' }) },
      { args: [{ kind: 'duration' }, { kind: 'timestamp' }], result: () => ({ kind: 'timestamp' }) },
      { args: [{ kind: 'duration' }, { kind: 'duration' }], result: () => ({ kind: 'duration' }) },
    ],
    '_-_': [
      ...arith(),
      { args: [{ kind: 'timestamp' }, { kind: 'timestamp' }], result: () => ({ kind: 'duration' }) },
      { args: [{ kind: 'timestamp' }, { kind: 'duration' }], result: () => ({ kind: 'timestamp' }) },
      { args: [{ kind: 'duration' }, { kind: 'duration' }], result: () => ({ kind: 'duration' }) },
    ],
    '_*_': arith(),
    '_/_': arith(),
    '_%_': [{ args: [INT, INT], result: () => INT }, { args: [UINT, UINT], result: () => UINT }],
    '_[_]': [
      { args: [listOf(DYN), INT], result: (_t, a) => (a[0].kind === 'list' ? a[0].elem : within(a[0])) },
      { args: [mapOf(DYN, DYN), DYN], result: (_t, a) => (a[0].kind === 'map' ? a[0].value : within(a[0])) },
    ],
    '@in': [
      { args: [DYN, listOf(DYN)], result: () => BOOL, cost: (_t, a) => 1 + maxSize(a[1]) },
      { args: [DYN, mapOf(DYN, DYN)], result: () => BOOL },
    ],
    '_?_:_': [{ args: [BOOL, DYN, DYN], result: (_t, a) => join(a[1], a[2]) }],
    '@not_strictly_false': [{ args: [BOOL], result: () => BOOL }],
  };
})();

function joinElem(a: CelT, b: CelT): CelT {
  const ea = a.kind === 'list' ? a.elem : DYN;
  const eb = b.kind === 'list' ? b.elem : DYN;
  if (a.kind === 'list' && a.max === 0) return eb;
  if (b.kind === 'list' && b.max === 0) return ea;
  return join(ea, eb);
}

function pickOverload(name: string, overloads: Overload[], target: CelT | undefined, args: CelT[], id: bigint): Overload {
  for (const o of overloads) {
    if ((o.target === undefined) !== (target === undefined)) continue;
    if (o.target && target && !matches(target, o.target)) continue;
    if (o.args.length !== args.length) continue;
    if (!o.args.every((t, i) => matches(args[i], t))) continue;
    if (o.strictSame && !matches(args[0], args[1])) continue;
    return o;
  }
  throw overloadError(name, target, args, id);
}

/** Checks `expr` with the variables of `scope`; throws CheckError at the first problem. */
export function check(expr: Expr, scope: Scope): Checked {
  const k = expr.exprKind;
  switch (k.case) {
    case 'constExpr': {
      const c = k.value.constantKind;
      switch (c.case) {
        case 'boolValue':
          return { type: BOOL, cost: 0 };
        case 'int64Value':
          return { type: INT, cost: 0 };
        case 'uint64Value':
          return { type: UINT, cost: 0 };
        case 'doubleValue':
          return { type: DOUBLE, cost: 0 };
        case 'stringValue':
          return { type: { kind: 'string', max: c.value.length, min: c.value.length }, cost: 0 };
        case 'bytesValue':
          return { type: { kind: 'bytes', max: c.value.length }, cost: 0 };
        case 'nullValue':
          return { type: NULL, cost: 0 };
        default:
          return { type: DYN, cost: 0 };
      }
    }
    case 'identExpr': {
      const t = scope.get(k.value.name);
      if (t) return { type: t, cost: 1 };
      if (TYPE_NAMES.has(k.value.name)) return { type: TYPE, cost: 0 };
      throw new CheckError(`undeclared reference to '${k.value.name}' (in container '')`, expr.id);
    }
    case 'selectExpr': {
      const sel = k.value;
      if (!sel.operand) return { type: DYN, cost: 0 };
      const operand = check(sel.operand, scope);
      const t = operand.type;
      let ft: CelT;
      if (t.kind === 'object') {
        const f = t.fields.get(sel.field);
        if (!f) throw new CheckError(`undefined field '${sel.field}'`, expr.id);
        ft = f;
      } else if (t.kind === 'map') ft = t.value;
      else if (t.kind === 'dyn') ft = within(t);
      else throw new CheckError(`type '${typeName(t)}' does not support field selection`, expr.id);
      return { type: sel.testOnly ? BOOL : ft, cost: operand.cost + 1 };
    }
    case 'listExpr': {
      let elem: CelT | undefined;
      let cost = 0;
      for (const e of k.value.elements) {
        const c = check(e, scope);
        cost += c.cost;
        if (elem && !matches(elem, c.type)) {
          // Kubernetes enables homogeneous aggregate literals.
          throw new CheckError(`expected type '${typeName(elem)}' but found '${typeName(c.type)}'`, e.id);
        }
        elem = elem ? join(elem, c.type) : c.type;
      }
      return { type: listOf(elem ?? DYN, k.value.elements.length), cost: cost + 10 };
    }
    case 'structExpr': {
      if (k.value.messageName) throw new CheckError(`undeclared reference to '${k.value.messageName}' (in container '')`, expr.id);
      let key: CelT | undefined;
      let value: CelT | undefined;
      let cost = 0;
      for (const e of k.value.entries) {
        if (e.keyKind.case === 'mapKey') {
          const kc = check(e.keyKind.value, scope);
          key = key ? join(key, kc.type) : kc.type;
          cost += kc.cost;
        }
        if (e.value) {
          const vc = check(e.value, scope);
          value = value ? join(value, vc.type) : vc.type;
          cost += vc.cost;
        }
      }
      return { type: mapOf(key ?? DYN, value ?? DYN, k.value.entries.length), cost: cost + 30 };
    }
    case 'comprehensionExpr': {
      const c = k.value;
      if (!c.iterRange || !c.accuInit || !c.loopCondition || !c.loopStep || !c.result) return { type: DYN, cost: 0 };
      const range = check(c.iterRange, scope);
      const rt = range.type;
      let iterT: CelT;
      if (rt.kind === 'list') iterT = rt.elem;
      else if (rt.kind === 'map') iterT = rt.key;
      else if (rt.kind === 'dyn') iterT = within(rt);
      else throw new CheckError(`expression of type '${typeName(rt)}' cannot be range of a comprehension (must be list, map, or dynamic)`, c.iterRange.id);
      const n = maxSize(rt);
      const init = check(c.accuInit, scope);
      const inner = new Map(scope);
      inner.set(c.iterVar, iterT);
      // The step sees the accumulator at its initial size; what one step adds, times the
      // range's size, bounds what the loop accumulates.
      inner.set(c.accuVar, init.type);
      const cond = check(c.loopCondition, inner);
      const step = check(c.loopStep, inner);
      let accu = join(init.type, step.type);
      if (accu.kind === 'list' && init.type.kind === 'list' && step.type.kind === 'list') {
        accu = listOf(step.type.elem.kind === 'dyn' && init.type.max > 0 ? init.type.elem : step.type.elem, init.type.max + n * Math.max(0, step.type.max - init.type.max));
      }
      const outer = new Map(scope);
      outer.set(c.accuVar, accu);
      const result = check(c.result, outer);
      return { type: result.type, cost: range.cost + init.cost + n * (cond.cost + step.cost + 1) + result.cost };
    }
    case 'callExpr': {
      const call = k.value;
      const target = call.target ? check(call.target, scope) : undefined;
      const args = call.args.map((a) => check(a, scope));
      const argCost = args.reduce((s, a) => s + a.cost, target?.cost ?? 0);
      const argTypes = args.map((a) => a.type);
      const overloads = getOwnList(OPERATORS, call.function) ?? getOwnList(LIBRARY, call.function);
      if (!overloads) throw new CheckError(`undeclared reference to '${call.function}' (in container '')`, expr.id);
      const o = pickOverload(call.function, overloads, target?.type, argTypes, expr.id);
      const type = o.result(target?.type, argTypes);
      const cost = o.cost ? o.cost(target?.type, argTypes) : 1;
      return { type, cost: argCost + cost };
    }
    default:
      return { type: DYN, cost: 0 };
  }
}

const TYPE_NAMES = new Set(['int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'null_type', 'type']);

function getOwnList(table: Record<string, Overload[]>, name: string): Overload[] | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}

/** Kubernetes refuses expressions longer than this many code points. */
export const MAX_EXPRESSION_CODE_POINTS = 100_000;
/** Nesting past this depth is refused before parsing (the parser recurses per level). */
export const MAX_NESTING = 250;

/** The deepest bracket nesting of the source (strings skipped roughly: only a guard). */
export function nestingDepth(src: string): number {
  let depth = 0;
  let max = 0;
  let quote = '';
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[' || c === '{') max = Math.max(max, ++depth);
    else if (c === ')' || c === ']' || c === '}') depth--;
  }
  return max;
}

/** The largest cost a number can carry without losing meaning in messages. */
export const COST_CAP = Number.MAX_SAFE_INTEGER;
export { MAX_REQUEST_SIZE_BYTES };
