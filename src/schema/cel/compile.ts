// Compiling one rule: parse, check against the node's type, estimate its cost, plan it.
import type { CelEnv, CelInput, CelResult, parse } from '@bufbuild/cel';
import type { ValidationRule } from '../../apimachinery/jsonschema.js';
import { compileGoPattern } from '../crd/regex.js';
import { check, CheckError, type Expr, MAX_EXPRESSION_CODE_POINTS, MAX_NESTING, nestingDepth } from './check.js';
import { evaluatorFunctions } from './library.js';
import { COST_LIMIT_EXCEEDED, metered } from './meter.js';
import { celLib, isCelError } from './runtime.js';
import type { CelT } from './types.js';

/** Kubernetes' per-call runtime cost limit and the static per-expression limit. */
export const PER_CALL_LIMIT = 1_000_000;
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
export const RUNTIME_COST_BUDGET = 10_000_000;

/** A rule's evaluation: its result and what its library calls charged (see CheckedProgram). */
export type Program = (self: CelInput, oldSelf: CelInput | undefined) => { result: CelResult; spent: number };

export interface CompiledExpression {
  program: Program;
  expr: Expr;
  /** The static cost bound of one evaluation. */
  cost: number;
  usesOldSelf: boolean;
}

export type CompileOutcome = { ok: true; value: CompiledExpression } | { ok: false; detail: string };

let env: CelEnv | undefined;

/** cel-go's issue format: `ERROR: <input>:line:col: message` and the line with a caret. */
function issue(src: string, offset: number, message: string): string {
  const before = src.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const col = offset - lineStart;
  const text = src.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${col + 1}: ${message}\n | ${text}\n | ${'.'.repeat(col)}^`;
}

function positionOf(src: string, message: string): { line: number; col: number; rest: string } | undefined {
  const m = /^<input>:(\d+):(\d+): (.*)$/s.exec(message);
  return m ? { line: Number(m[1]), col: Number(m[2]), rest: m[3] } : undefined;
}

function usesIdent(expr: Expr, name: string): boolean {
  const k = expr.exprKind;
  switch (k.case) {
    case 'identExpr':
      return k.value.name === name;
    case 'selectExpr':
      return !!k.value.operand && usesIdent(k.value.operand, name);
    case 'callExpr':
      return (!!k.value.target && usesIdent(k.value.target, name)) || k.value.args.some((a) => usesIdent(a, name));
    case 'listExpr':
      return k.value.elements.some((e) => usesIdent(e, name));
    case 'structExpr':
      return k.value.entries.some((e) => (e.keyKind.case === 'mapKey' && usesIdent(e.keyKind.value, name)) || (!!e.value && usesIdent(e.value, name)));
    case 'comprehensionExpr': {
      const c = k.value;
      const shadowed = c.iterVar === name || c.accuVar === name;
      return [c.iterRange, c.accuInit].some((e) => !!e && usesIdent(e, name)) || (!shadowed && [c.loopCondition, c.loopStep, c.result].some((e) => !!e && usesIdent(e, name)));
    }
    default:
      return false;
  }
}

/** The regex functions whose pattern, when a literal, is compiled with the program. */
const REGEX_FUNCTIONS = new Set(['matches', 'find', 'findAll']);

/**
 * The first literal pattern of a regex call that Go refuses, with its error: cel-go compiles
 * literal patterns when it plans the program, so Kubernetes refuses such a rule when it is
 * written, not when it runs.
 */
function invalidLiteralPattern(expr: Expr): string | undefined {
  const k = expr.exprKind;
  switch (k.case) {
    case 'selectExpr':
      return k.value.operand ? invalidLiteralPattern(k.value.operand) : undefined;
    case 'callExpr': {
      const call = k.value;
      if (REGEX_FUNCTIONS.has(call.function)) {
        const pattern = call.target ? call.args[0] : call.args[1];
        const c = pattern?.exprKind;
        if (c?.case === 'constExpr' && c.value.constantKind.case === 'stringValue') {
          const compiled = compileGoPattern(c.value.constantKind.value);
          if (!compiled.ok) return compiled.error;
        }
      }
      for (const e of [call.target, ...call.args]) {
        const found = e ? invalidLiteralPattern(e) : undefined;
        if (found !== undefined) return found;
      }
      return undefined;
    }
    case 'listExpr':
      for (const e of k.value.elements) {
        const found = invalidLiteralPattern(e);
        if (found !== undefined) return found;
      }
      return undefined;
    case 'structExpr':
      for (const e of k.value.entries) {
        const found = (e.keyKind.case === 'mapKey' ? invalidLiteralPattern(e.keyKind.value) : undefined) ?? (e.value ? invalidLiteralPattern(e.value) : undefined);
        if (found !== undefined) return found;
      }
      return undefined;
    case 'comprehensionExpr': {
      const c = k.value;
      for (const e of [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result]) {
        const found = e ? invalidLiteralPattern(e) : undefined;
        if (found !== undefined) return found;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/** The function every comprehension's loop condition is wrapped in (not a name rules can write). */
export const LOOP_TICK = '@orch_tick';

/**
 * Wraps the loop condition of every comprehension in LOOP_TICK, in place: the evaluator reads
 * a comprehension's range whole before it loops, so the loop itself must give the meter a
 * place to look at its deadline and to stop the loop (an error condition ends it).
 */
function instrumentLoops(expr: Expr): void {
  const k = expr.exprKind;
  switch (k.case) {
    case 'selectExpr':
      if (k.value.operand) instrumentLoops(k.value.operand);
      return;
    case 'callExpr':
      if (k.value.target) instrumentLoops(k.value.target);
      for (const a of k.value.args) instrumentLoops(a);
      return;
    case 'listExpr':
      for (const e of k.value.elements) instrumentLoops(e);
      return;
    case 'structExpr':
      for (const e of k.value.entries) {
        if (e.keyKind.case === 'mapKey') instrumentLoops(e.keyKind.value);
        if (e.value) instrumentLoops(e.value);
      }
      return;
    case 'comprehensionExpr': {
      const c = k.value;
      for (const e of [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result]) if (e) instrumentLoops(e);
      const cond = c.loopCondition;
      if (cond) {
        const wrapped = { ...cond, exprKind: { case: 'callExpr', value: { function: LOOP_TICK, args: [cond] } } };
        c.loopCondition = wrapped as unknown as Expr;
      }
      return;
    }
    default:
      return;
  }
}

/**
 * Runs a planned program under the per-call limit of its library calls' actual work; a run
 * past it is cancelled with cel-go's error, whatever the expression made of the call's error.
 */
function meteredRun(run: (vars: Record<string, CelInput>) => CelResult, vars: Record<string, CelInput>): { result: CelResult; spent: number } {
  const out = metered(PER_CALL_LIMIT, () => run(vars));
  return { result: out.exceeded ? celLib().celError(new Error(COST_LIMIT_EXCEEDED)) : out.result, spent: out.spent };
}

/** An expression checked against named variables: its result type, static cost and plan. */
export interface CheckedProgram {
  /** The result; `spent` is what its library calls charged (at most PER_CALL_LIMIT, else the result is the cancellation). */
  runMetered(vars: Record<string, CelInput>): { result: CelResult; spent: number };
  run(vars: Record<string, CelInput>): CelResult;
  expr: Expr;
  type: CelT;
  cost: number;
}

/**
 * Parses, checks and plans `src` with the variables of `scope`. The detail of a failure is
 * cel-go's issue text after `prefix` (`compilation failed`).
 */
export function compileInScope(src: string, scope: ReadonlyMap<string, CelT>, prefix: string): { ok: true; value: CheckedProgram } | { ok: false; detail: string } {
  const codePoints = [...src].length;
  if (codePoints > MAX_EXPRESSION_CODE_POINTS) {
    return { ok: false, detail: `${prefix}: ${issue(src, 0, `expression code point size exceeds limit: size: ${codePoints}, limit ${MAX_EXPRESSION_CODE_POINTS}`)}` };
  }
  if (nestingDepth(src) > MAX_NESTING) {
    return { ok: false, detail: `${prefix}: ${issue(src, 0, `expression recursion limit exceeded: ${MAX_NESTING}`)}` };
  }
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = celLib().parse(src);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const pos = positionOf(src, msg);
    if (!pos) return { ok: false, detail: `${prefix}: ${issue(src, 0, `Syntax error: ${msg}`)}` };
    const lines = src.split('\n');
    let offset = 0;
    for (let i = 0; i < pos.line - 1 && i < lines.length; i++) offset += lines[i].length + 1;
    return { ok: false, detail: `${prefix}: ${issue(src, offset + pos.col - 1, `Syntax error: ${pos.rest}`)}` };
  }
  let checked;
  try {
    checked = check(parsed.expr, scope);
  } catch (e) {
    if (e instanceof CheckError) {
      const offset = parsed.sourceInfo?.positions[e.exprId.toString()] ?? 0;
      return { ok: false, detail: `${prefix}: ${issue(src, offset, e.message)}` };
    }
    if (e instanceof RangeError) return { ok: false, detail: `${prefix}: ${issue(src, 0, `expression recursion limit exceeded: ${MAX_NESTING}`)}` };
    throw e;
  }
  const badPattern = invalidLiteralPattern(parsed.expr);
  if (badPattern !== undefined) {
    const instantiation = prefix.startsWith('messageExpression') ? 'messageExpression instantiation failed' : 'program instantiation failed';
    return { ok: false, detail: `${instantiation}: ${badPattern}` };
  }
  env ??= celLib().celEnv({ funcs: evaluatorFunctions() });
  // The checked expression is kept as parsed (costs are recomputed on it); the plan's copy is instrumented.
  const planned = celLib().parse(src);
  instrumentLoops(planned.expr);
  const run = celLib().plan(env, planned);
  return {
    ok: true,
    value: {
      runMetered: (vars) => meteredRun(run, vars),
      run: (vars) => meteredRun(run, vars).result,
      expr: parsed.expr,
      type: checked.type,
      cost: checked.cost,
    },
  };
}

/** The cost bound of a checked expression with other variable types (sizes measured on actual values). */
export function costInScope(expr: Expr, scope: ReadonlyMap<string, CelT>, fallback: number): number {
  try {
    return check(expr, scope).cost;
  } catch {
    return fallback;
  }
}

/**
 * Compiles a rule or message expression for a node of type `self`; `want` is the result
 * kind it must have. `prefix` names what failed (`compilation failed`, `messageExpression
 * compilation failed`), as Kubernetes words it.
 */
export function compileExpression(src: string, self: CelT, want: 'bool' | 'string', prefix: string): CompileOutcome {
  const scope = new Map<string, CelT>([
    ['self', self],
    ['oldSelf', self],
  ]);
  const out = compileInScope(src, scope, prefix);
  if (!out.ok) return out;
  const t = out.value.type.kind;
  if (t !== want && t !== 'dyn') {
    return { ok: false, detail: want === 'bool' ? 'cel expression must evaluate to a bool' : 'messageExpression must evaluate to a string' };
  }
  const { runMetered, expr, cost } = out.value;
  const usesOldSelf = usesIdent(expr, 'oldSelf');
  const program: Program = (self, oldSelf) => runMetered(oldSelf === undefined ? { self } : { self, oldSelf });
  return { ok: true, value: { program, expr, cost, usesOldSelf } };
}

/** The runtime cost bound of an expression, with sizes measured on the actual values. */
export function measuredCost(compiled: CompiledExpression, self: CelT): number {
  try {
    return check(compiled.expr, new Map([['self', self], ['oldSelf', self]])).cost;
  } catch {
    return compiled.cost;
  }
}

/** A rule as the 1.27 API has it: `reason` and `fieldPath` came in 1.28 and are not read. */
export function ruleOf(rule: ValidationRule): { rule: string; message: string; messageExpression: string } {
  return { rule: rule.rule ?? '', message: rule.message ?? '', messageExpression: rule.messageExpression ?? '' };
}

export function evalError(r: CelResult): string | undefined {
  if (!isCelError(r)) return undefined;
  const msg = r.message;
  const field = /^field not found: (.*)$/.exec(msg);
  return field ? `no such key: ${field[1]}` : msg;
}
