// One binding's evaluation of its policy's CEL for one request: match conditions, then the
// validations (with their messages), then the audit annotations, within Kubernetes' runtime
// cost limits. Pure: the caller supplies the variables and applies the decisions.
import type { CelInput, CelResult } from '@bufbuild/cel';
import type { CompiledPolicy } from '../../apis/admissionregistration/policies.js';
import { policyScope } from '../../apis/admissionregistration/policies.js';
import { costInScope, evalError, PER_CALL_LIMIT, RUNTIME_COST_BUDGET, type CheckedProgram } from '../../schema/cel/compile.js';
import { measuredType, NULL, toCel, type CelT } from '../../schema/cel/types.js';
import { REQUEST_DEADLINE_MS } from '../../schema/cel/meter.js';
import { isCelError } from '../../schema/cel/runtime.js';

/** The JSON values the expressions see. */
export interface PolicyVariables {
  object: unknown;
  oldObject: unknown;
  request: Record<string, unknown>;
  /** The binding's param object; undefined when the policy has no paramKind. */
  params?: unknown;
}

export type FailurePolicy = 'Fail' | 'Ignore';

export interface PolicyDecision {
  action: 'admit' | 'deny';
  /** Whether the decision comes from an error rather than a false validation. */
  error: boolean;
  message: string;
  /** The Status reason of a denial (`Invalid` unless the validation names another). */
  reason: string;
  /** The validation's index, for the audit annotation of a failure. */
  index: number;
}

export interface AnnotationResult {
  key: string;
  value: string;
}

export interface EvaluationResult {
  decisions: PolicyDecision[];
  annotations: AnnotationResult[];
}

const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';
/** Kubernetes drops an evaluated message longer than this (and falls back to the static one). */
const MAX_MESSAGE_BYTES = 5 * 1024;

class CostExceeded extends Error {}

/** Evaluates programs against the request's variables, charging a shared runtime budget. */
class Runner {
  private budget = RUNTIME_COST_BUDGET;
  /** The budget also runs out with time: each run is held to a deadline, and all of them to this one. */
  private readonly deadline = performance.now() + REQUEST_DEADLINE_MS;
  private readonly vars: Record<string, CelInput>;
  private readonly measured: Map<string, CelT>;

  constructor(v: PolicyVariables, hasParams: boolean) {
    const scope = policyScope(hasParams);
    const raw: Record<string, unknown> = { object: v.object ?? null, oldObject: v.oldObject ?? null, request: v.request };
    if (hasParams) raw.params = v.params ?? null;
    this.vars = {};
    this.measured = new Map();
    for (const [name, t] of scope) {
      this.vars[name] = toCel(raw[name], t);
      this.measured.set(name, t.kind === 'dyn' ? measuredDyn(raw[name]) : measuredType(t, raw[name]));
    }
  }

  /**
   * The program's result. The cost of a run is its bound with this request's sizes; a run
   * over the per-call limit fails as cel-go's cancelled evaluation does, one over the budget
   * left stops every further evaluation (CostExceeded).
   */
  run(p: CheckedProgram): CelResult | { costError: string } {
    const cost = p.cost <= PER_CALL_LIMIT ? p.cost : costInScope(p.expr, this.measured, p.cost);
    if (cost > PER_CALL_LIMIT) return { costError: 'operation cancelled: actual cost limit exceeded' };
    if (cost > this.budget || performance.now() > this.deadline) throw new CostExceeded(OUT_OF_BUDGET);
    this.budget -= cost;
    const { result, spent } = p.runMetered(this.vars);
    // The library calls' actual work, where it passed the bound charged above.
    this.budget -= Math.max(0, spent - cost);
    return result;
  }
}

/**
 * An untyped value as the cost bound sees it: dyn no larger than its largest part (the
 * longest string, list or object anywhere in it), so every part of it is bounded too.
 */
export function measuredDyn(value: unknown): CelT {
  if (value === null || value === undefined) return NULL;
  let largest = 1;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') largest = Math.max(largest, v.length);
    else if (Array.isArray(v)) {
      largest = Math.max(largest, v.length);
      for (const x of v) stack.push(x);
    } else if (v !== null && typeof v === 'object') {
      const values = Object.values(v as Record<string, unknown>);
      largest = Math.max(largest, values.length);
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        largest = Math.max(largest, k.length);
        stack.push(x);
      }
    }
  }
  return { kind: 'dyn', max: largest };
}

function failure(policy: FailurePolicy, message: string, index = 0): PolicyDecision {
  return { action: policy === 'Ignore' ? 'admit' : 'deny', error: true, message, reason: 'Invalid', index };
}

function errorText(r: CelResult | { costError: string }): string | undefined {
  if (typeof r === 'object' && r !== null && 'costError' in r) return r.costError;
  return evalError(r as CelResult);
}

/** Evaluates the compiled policy for one binding's request. */
export function evaluatePolicy(policy: CompiledPolicy, hasParams: boolean, failurePolicy: FailurePolicy, vars: PolicyVariables): EvaluationResult {
  const runner = new Runner(vars, hasParams);
  try {
    // Match conditions: an error decides by the failure policy; any false skips the binding.
    const failed: string[] = [];
    for (const m of policy.matchConditions) {
      if (!m.program) continue;
      const r = runner.run(m.program);
      const err = errorText(r);
      if (err !== undefined) failed.push(`expression '${m.expression}' resulted in error: ${err}`);
      else if (r === false) return { decisions: [], annotations: [] };
    }
    if (failed.length > 0) return { decisions: [failure(failurePolicy, failed.join('; '))], annotations: [] };

    const decisions: PolicyDecision[] = policy.validations.map((v, i) => {
      if (!v.program) return failure(failurePolicy, `compilation failed for expression '${v.expression}'`, i);
      const r = runner.run(v.program);
      const err = errorText(r);
      if (err !== undefined) return failure(failurePolicy, `expression '${v.expression.trim()}' resulted in error: ${err}`, i);
      if (r === true) return { action: 'admit', error: false, message: '', reason: '', index: i };
      let message = '';
      if (v.messageProgram) {
        const m = runner.run(v.messageProgram);
        if (!isCostError(m) && !isCelError(m) && typeof m === 'string') {
          message = m.trim();
          if (Buffer.byteLength(message) > MAX_MESSAGE_BYTES || message.includes('\n')) message = '';
        }
      }
      if (message === '' && v.message.trim() !== '') message = v.message.trim();
      if (message === '') message = `failed expression: ${v.expression.trim()}`;
      return { action: 'deny', error: false, message, reason: v.reason, index: i };
    });

    const annotations: AnnotationResult[] = [];
    for (const a of policy.auditAnnotations) {
      if (!a.program) continue;
      const r = runner.run(a.program);
      const err = errorText(r);
      if (err !== undefined) {
        decisions.push(failure(failurePolicy, `expression '${a.valueExpression}' resulted in error: ${err}`));
        continue;
      }
      if (r === null || r === undefined) continue;
      if (typeof r !== 'string') {
        decisions.push(failure('Fail', `valueExpression '${a.valueExpression}' resulted in unsupported return type: ${typeof r}. Return type must be either string or null.`));
        continue;
      }
      const value = r.trim();
      if (value !== '') annotations.push({ key: a.key, value });
    }
    return { decisions, annotations };
  } catch (e) {
    if (e instanceof CostExceeded) return { decisions: [failure(failurePolicy, e.message)], annotations: [] };
    throw e;
  }
}

function isCostError(r: unknown): r is { costError: string } {
  return typeof r === 'object' && r !== null && 'costError' in r;
}
