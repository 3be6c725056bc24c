// CEL validation rules (`x-kubernetes-validations`) of custom resource schemas: compiled
// once per definition version, evaluated on every write.
import type { CelInput } from '@bufbuild/cel';
import { forbiddenField, invalidField, requiredField, type FieldError } from '../../apimachinery/errors.js';
import { itemsSchema, type JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import { getOwn } from '../../apimachinery/own.js';
import { extension } from '../../naming/index.js';
import {
  compileExpression,
  evalError,
  measuredCost,
  ruleOf,
  PER_CALL_LIMIT,
  RUNTIME_COST_BUDGET,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
  type CompiledExpression,
} from './compile.js';
import { REQUEST_DEADLINE_MS } from './meter.js';
import { isCelError } from './runtime.js';
import { escapeName, measuredType, schemaType, toCel, MAX_REQUEST_SIZE_BYTES, type CelT } from './types.js';

/** The rules of one schema, compiled; evaluates an object (and, on update, its old self). */
export interface SchemaValidator {
  /** Whether any rule exists (objects need no walk otherwise). */
  readonly empty: boolean;
  validate(obj: unknown, old: unknown): FieldError[];
}

export interface CompiledValidations {
  /** Compile errors and cost-limit refusals, at the rules' paths under `path`. */
  errors: FieldError[];
  validator: SchemaValidator;
}

interface CompiledRule {
  rule: string;
  message: string;
  messageExpression: string;
  program?: CompiledExpression;
  messageProgram?: CompiledExpression;
}

/** A schema node with rules somewhere at or below it. */
interface Node {
  /** The schema's `type`, the value Kubernetes' errors show (`"object"`). */
  typeString: string;
  type: CelT;
  rules: CompiledRule[];
  props: Map<string, Node>;
  items?: Node;
  additional?: Node;
  /** Keys of a `map` list (old items are correlated by them); undefined for other lists. */
  mapKeys?: string[];
}

interface CompileState {
  errors: FieldError[];
  total: number;
  expensive: { path: string; cost: number }[];
}

/** Go's `%#v` of the 1.27 internal ValidationRule, how Kubernetes shows a rule that failed to compile. */
function goRule(r: { rule: string; message: string; messageExpression: string }): string {
  return `apiextensions.ValidationRule{Rule:${JSON.stringify(r.rule)}, Message:${JSON.stringify(r.message)}, MessageExpression:${JSON.stringify(r.messageExpression)}}`;
}

function costMessage(name: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const text = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${name} exceeds budget by factor of ${text} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

function observe(state: CompileState, path: string, cost: number): void {
  state.total += cost;
  if (cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100) return;
  state.expensive.push({ path, cost });
  state.expensive.sort((a, b) => b.cost - a.cost);
  if (state.expensive.length > 4) state.expensive.length = 4;
}

function hasNewlines(s: string): boolean {
  return /[\n\r]/.test(s);
}

/** How many elements a node's children can number (1 for a struct's fields), or undefined when unbounded. */
function maxElements(schema: JSONSchemaProps): number | undefined {
  if (schema.type === 'object') {
    if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) return schema.maxProperties === undefined ? undefined : Math.max(0, schema.maxProperties);
    return 1;
  }
  if (schema.type === 'array') return schema.maxItems === undefined ? undefined : Math.max(0, schema.maxItems);
  return 1;
}

/** Kubernetes' cardinality of a node under unbounded collections: how many fit in one request. */
function unboundedCardinality(schema: JSONSchemaProps): number {
  const min = schema.type === 'boolean' ? 4 : schema.type === 'string' || schema.type === 'object' || schema.type === 'array' ? 2 : 1;
  return Math.floor(MAX_REQUEST_SIZE_BYTES / (min + 1));
}

function compileNode(
  schema: JSONSchemaProps,
  path: string,
  type: CelT,
  cardinality: number | undefined,
  uncorrelatable: string | undefined,
  state: CompileState,
): Node | undefined {
  const rulesKey = extension('validations');
  const rules: CompiledRule[] = [];
  const specs = schema['x-kubernetes-validations'] ?? [];
  specs.forEach((spec, i) => {
    const r = ruleOf(spec);
    const rulePath = `${path}.${rulesKey}[${i}]`;
    const compiled: CompiledRule = { ...r };
    rules.push(compiled);
    const trimmedRule = r.rule.trim();
    const trimmedMsg = r.message.trim();
    if (trimmedRule === '') {
      state.errors.push(requiredField(`${rulePath}.rule`, 'rule is not specified'));
      return;
    } else if (r.message.length > 0 && trimmedMsg === '') {
      state.errors.push(invalidField(`${rulePath}.message`, r.message, 'message must be non-empty if specified'));
      return;
    } else if (hasNewlines(trimmedMsg)) {
      state.errors.push(invalidField(`${rulePath}.message`, r.message, 'message must not contain line breaks'));
      return;
    } else if (hasNewlines(trimmedRule) && trimmedMsg === '') {
      state.errors.push(requiredField(`${rulePath}.message`, 'message must be specified if rule contains line breaks'));
      return;
    }
    if (r.messageExpression.length > 0 && r.messageExpression.trim() === '') {
      state.errors.push(requiredField(`${rulePath}.messageExpression`, 'messageExpression must be non-empty if specified'));
      return;
    }
    const card = cardinality ?? unboundedCardinality(schema);
    const out = compileExpression(r.rule, type, 'bool', 'compilation failed');
    if (!out.ok) {
      state.errors.push({ type: 'FieldValueInvalid', field: `${rulePath}.rule`, detail: `Invalid value: ${goRule(r)}: ${out.detail}` });
    } else {
      const cost = Math.min(Number.MAX_SAFE_INTEGER, out.value.cost * card);
      if (cost > STATIC_ESTIMATED_COST_LIMIT) state.errors.push(forbiddenField(`${rulePath}.rule`, costMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT)));
      observe(state, `${rulePath}.rule`, cost);
      compiled.program = out.value;
      if (out.value.usesOldSelf && uncorrelatable !== undefined) {
        state.errors.push(invalidField(`${rulePath}.rule`, r.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}`));
      }
    }
    if (r.messageExpression !== '') {
      const msg = compileExpression(r.messageExpression, type, 'string', 'messageExpression compilation failed');
      if (!msg.ok) {
        state.errors.push({ type: 'FieldValueInvalid', field: `${rulePath}.messageExpression`, detail: `Invalid value: ${goRule(r)}: ${msg.detail}` });
      } else {
        const cost = Math.min(Number.MAX_SAFE_INTEGER, msg.value.cost * card);
        if (cost > STATIC_ESTIMATED_COST_LIMIT) state.errors.push(forbiddenField(`${rulePath}.messageExpression`, costMessage('estimated messageExpression cost', cost, STATIC_ESTIMATED_COST_LIMIT)));
        observe(state, `${rulePath}.messageExpression`, cost);
        compiled.messageProgram = msg.value;
      }
    }
  });

  const child = (): number | undefined => {
    if (cardinality === undefined) return undefined;
    const n = maxElements(schema);
    return n === undefined ? undefined : cardinality * n;
  };
  const props = new Map<string, Node>();
  if (schema.properties && type.kind === 'object') {
    for (const [name, prop] of Object.entries(schema.properties)) {
      const escaped = escapeName(name);
      const ft = escaped === undefined ? undefined : type.fields.get(escaped);
      if (!ft) continue;
      const n = compileNode(prop, `${path}.properties[${name}]`, ft, child(), uncorrelatable, state);
      if (n) props.set(name, n);
    }
  }
  let items: Node | undefined;
  const itemSchema = itemsSchema(schema);
  if (itemSchema && type.kind === 'list') {
    const listType = schema['x-kubernetes-list-type'];
    items = compileNode(itemSchema, `${path}.items`, type.elem, child(), uncorrelatable ?? (listType !== 'map' ? path : undefined), state);
  }
  let additional: Node | undefined;
  const extra = schema.additionalProperties;
  if (typeof extra === 'object' && extra !== null && type.kind === 'map') {
    additional = compileNode(extra, `${path}.additionalProperties`, type.value, child(), uncorrelatable, state);
  }
  if (rules.length === 0 && props.size === 0 && !items && !additional) return undefined;
  return {
    typeString: schema.type ?? '',
    type,
    rules,
    props,
    items,
    additional,
    mapKeys: schema['x-kubernetes-list-type'] === 'map' ? (schema['x-kubernetes-list-map-keys'] ?? []) : undefined,
  };
}

/** Compiles every rule of the schema tree; `path` is the schema's path in the definition. */
export function compileValidations(schema: JSONSchemaProps, path: string): CompiledValidations {
  const state: CompileState = { errors: [], total: 0, expensive: [] };
  const root = compileNode(schema, path, schemaType(schema, true), 1, undefined, state);
  if (state.total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    for (const e of state.expensive) state.errors.push(forbiddenField(e.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'));
    state.errors.push(forbiddenField(path, costMessage(`${extension('validations')} estimated rule cost total for entire OpenAPIv3 schema`, state.total, STATIC_ESTIMATED_CRD_COST_LIMIT)));
  }
  if (!root) return { errors: state.errors, validator: { empty: true, validate: () => [] } };
  return {
    errors: state.errors,
    validator: {
      empty: false,
      validate: (obj, old) => {
        const run: RunState = { budget: RUNTIME_COST_BUDGET, deadline: performance.now() + REQUEST_DEADLINE_MS, errors: [], stopped: false };
        validateNode(root, '', obj, old, run);
        return run.errors;
      },
    },
  };
}

interface RunState {
  budget: number;
  /** When the request's rules have run as long as its budget allows (see REQUEST_DEADLINE_MS). */
  deadline: number;
  errors: FieldError[];
  stopped: boolean;
}

const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';
/** Kubernetes bounds an evaluated message. */
const MAX_MESSAGE_BYTES = 5 * 1024;

function childPath(base: string, name: string): string {
  return base === '' ? name : `${base}.${name}`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The runtime cost of one expression on this value: its static bound when that is within
 * the per-call limit, else the bound recomputed with the value's measured sizes.
 */
function runtimeCost(expr: CompiledExpression, node: Node, value: unknown, old: unknown): number {
  if (expr.cost <= PER_CALL_LIMIT) return expr.cost;
  const measured = measuredType(node.type, value);
  const withOld = old === undefined ? measured : measuredType(measured, old);
  return measuredCost(expr, withOld);
}

function evaluateRules(node: Node, path: string, value: unknown, old: unknown, run: RunState): void {
  if (node.rules.length === 0) return;
  if (run.budget <= 0 || performance.now() > run.deadline) {
    run.errors.push(invalidField(path, node.typeString, OUT_OF_BUDGET));
    run.stopped = true;
    return;
  }
  const self = toCel(value, node.type);
  const oldSelf: CelInput | undefined = old === undefined || old === null ? undefined : toCel(old, node.type);
  for (const rule of node.rules) {
    const p = rule.program;
    if (!p) continue;
    if (p.usesOldSelf && oldSelf === undefined) continue;
    const ruleText = rule.message.trim() !== '' ? rule.message.trim() : rule.rule.trim();
    const cost = runtimeCost(p, node, value, old);
    if (cost > PER_CALL_LIMIT) {
      run.errors.push(invalidField(path, node.typeString, `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText}`));
      run.stopped = true;
      return;
    }
    if (cost > run.budget || performance.now() > run.deadline) {
      run.errors.push(invalidField(path, node.typeString, OUT_OF_BUDGET));
      run.stopped = true;
      return;
    }
    run.budget -= cost;
    const { result, spent } = p.program(self, oldSelf);
    // The actual work of the library calls, where it passed the bound charged above.
    run.budget -= Math.max(0, spent - cost);
    const err = evalError(result);
    if (err !== undefined) {
      if (err.startsWith('operation cancelled: actual cost limit exceeded')) {
        run.errors.push(invalidField(path, node.typeString, `'${err}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText}`));
        run.stopped = true;
        return;
      }
      if (err.startsWith('no such overload') || err.startsWith('no matching overload')) {
        run.errors.push(invalidField(path, node.typeString, `'${err}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText}`));
      } else {
        run.errors.push(invalidField(path, node.typeString, `${err} evaluating rule: ${ruleText}`));
      }
      continue;
    }
    if (result === true) continue;
    const fallback = rule.message.trim() !== '' ? rule.message.trim() : `failed rule: ${rule.rule.trim()}`;
    if (!rule.messageProgram) {
      run.errors.push(invalidField(path, node.typeString, fallback));
      continue;
    }
    const mcost = runtimeCost(rule.messageProgram, node, value, old);
    if (mcost > PER_CALL_LIMIT) {
      run.errors.push(invalidField(path, node.typeString, `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(rule.messageExpression)}`));
      run.stopped = true;
      return;
    }
    if (mcost > run.budget) {
      run.errors.push(invalidField(path, node.typeString, 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run'));
      run.stopped = true;
      return;
    }
    run.budget -= mcost;
    const { result: msg, spent: mspent } = rule.messageProgram.program(self, oldSelf);
    run.budget -= Math.max(0, mspent - mcost);
    if (evalError(msg)?.startsWith('operation cancelled: actual cost limit exceeded')) {
      run.errors.push(invalidField(path, node.typeString, `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(rule.messageExpression)}`));
      run.stopped = true;
      return;
    }
    // An error, a non-string, an empty, too long or multi-line message falls back to the rule's message.
    const text = !isCelError(msg) && typeof msg === 'string' ? msg.trim() : '';
    const usable = text !== '' && Buffer.byteLength(text) <= MAX_MESSAGE_BYTES && !/\n/.test(text);
    run.errors.push(invalidField(path, node.typeString, usable ? text : fallback));
  }
}

function validateNode(node: Node, path: string, value: unknown, old: unknown, run: RunState): void {
  if (value === null || value === undefined || run.stopped) return;
  evaluateRules(node, path, value, old, run);
  if (run.stopped) return;
  if (Array.isArray(value)) {
    if (!node.items) return;
    const oldItems = Array.isArray(old) ? old : [];
    const index = node.mapKeys ? correlate(oldItems, node.mapKeys) : undefined;
    for (let i = 0; i < value.length && !run.stopped; i++) {
      const oldItem = index ? index.get(keyOf(value[i], node.mapKeys ?? [])) : undefined;
      validateNode(node.items, `${path}[${i}]`, value[i], oldItem, run);
    }
    return;
  }
  if (!isPlainObject(value)) return;
  const oldObj = isPlainObject(old) ? old : undefined;
  if (node.additional) {
    for (const [k, v] of Object.entries(value)) {
      if (run.stopped) return;
      validateNode(node.additional, `${path}[${k}]`, v, oldObj ? getOwn(oldObj, k) : undefined, run);
    }
  }
  for (const [k, v] of Object.entries(value)) {
    if (run.stopped) return;
    const sub = node.props.get(k);
    if (sub) validateNode(sub, childPath(path, k), v, oldObj ? getOwn(oldObj, k) : undefined, run);
  }
}

/** The identity of a map-list item: its key fields' values (items lacking a key are not correlated). */
function keyOf(item: unknown, keys: string[]): string {
  if (!isPlainObject(item)) return '\u0000';
  return JSON.stringify(keys.map((k) => getOwn(item, k) ?? null));
}

function correlate(items: unknown[], keys: string[]): Map<string, unknown> {
  const m = new Map<string, unknown>();
  for (const item of items) {
    const k = keyOf(item, keys);
    if (k !== '\u0000' && !m.has(k)) m.set(k, item);
  }
  return m;
}
