// KWOK's `Stage` (kwok.x-k8s.io/v1alpha1): when an object matches a stage's selector, the
// stage's `next` is played after its delay. The engine here is pure: an object, the stages
// and the time in, the stage to play and when, or what playing it changes, out. The node
// agent does the writing.

import { deepEqual } from '../apimachinery/equality.js';
import { getOwn } from '../apimachinery/own.js';
import { isPlainObject, type KubeObject } from '../apimachinery/types.js';
import { applyStrategicMergePatch, catalogPatchSchema } from '../patch/index.js';
import { readYaml } from '../codec/yaml.js';
import { compileQuery, type Query } from './query.js';
import { RenderError, type Template, type TemplateEnv } from './template.js';

export type SimulatedKind = 'Pod' | 'Node';

export type SelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

export interface Requirement {
  query: Query;
  operator: SelectorOperator;
  values: string[];
}

export interface StageEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export interface StageFinalizers {
  add: string[];
  remove: string[];
  empty: boolean;
}

/** A built-in stage computes its status change itself rather than from a template. */
export type StatusFunction = (obj: KubeObject, env: TemplateEnv) => Record<string, unknown>;

export interface StageNext {
  event?: StageEvent;
  finalizers?: StageFinalizers;
  delete: boolean;
  statusTemplate?: Template;
  status?: StatusFunction;
}

export interface StageDelay {
  durationMs: number;
  durationFrom?: Query;
  /** Absent: no jitter. */
  jitterMs?: number;
  jitterFrom?: Query;
}

export interface Stage {
  name: string;
  /** Where the stage was read (a file, or `built-in`), for messages. */
  source: string;
  kind: SimulatedKind;
  matchLabels?: Record<string, string>;
  matchAnnotations?: Record<string, string>;
  matchExpressions: Requirement[];
  weight: number;
  weightFrom?: Query;
  delay?: StageDelay;
  next: StageNext;
  immediateNextStage: boolean;
}

function stringMap(v: unknown): Record<string, unknown> {
  return isPlainObject(v) ? v : {};
}

function matchesSet(want: Record<string, string>, have: Record<string, unknown>): boolean {
  for (const [k, v] of Object.entries(want)) if (getOwn(have, k) !== v) return false;
  return true;
}

/** How KWOK compares a query's values to a requirement's strings: strings, booleans, integers. */
function asSelectorString(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if ((typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint') return String(v);
  return undefined;
}

export function requirementMatches(r: Requirement, obj: unknown): boolean {
  const values = r.query.run(obj);
  switch (r.operator) {
    case 'In':
      return values.some((v) => r.values.includes(asSelectorString(v) ?? '\0'));
    case 'NotIn':
      return !values.some((v) => r.values.includes(asSelectorString(v) ?? '\0'));
    case 'Exists':
      return values.length > 0;
    case 'DoesNotExist':
      return values.length === 0;
  }
}

/** The stage's selector holds for `obj` (labels, annotations and expressions, ANDed). */
export function stageMatches(stage: Stage, obj: KubeObject): boolean {
  if (stage.matchLabels && !matchesSet(stage.matchLabels, stringMap(obj.metadata?.labels))) return false;
  if (stage.matchAnnotations && !matchesSet(stage.matchAnnotations, stringMap(obj.metadata?.annotations))) return false;
  return stage.matchExpressions.every((r) => requirementMatches(r, obj));
}

/** A number from a `*From` query's first value: integers and strings of them. */
function intFrom(q: Query | undefined, obj: KubeObject): number | undefined {
  const v = q?.run(obj)[0];
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' && /^[+-]?\d+$/.test(v.trim())) return Number(v.trim());
  return undefined;
}

function stageWeight(stage: Stage, obj: KubeObject): number {
  return Math.max(0, intFrom(stage.weightFrom, obj) ?? stage.weight);
}

/**
 * The stage to play for `obj` (KWOK's choice): the only match, or one drawn among the matches
 * by weight (uniformly when every weight is 0). `random` returns [0, 1).
 */
export function chooseStage(obj: KubeObject, stages: readonly Stage[], random: () => number): Stage | undefined {
  const matched = stages.filter((s) => stageMatches(s, obj));
  if (matched.length <= 1) return matched[0];
  const weights = matched.map((s) => stageWeight(s, obj));
  const total = weights.reduce((a, b) => a + b, 0);
  if (total === 0) return matched[Math.min(matched.length - 1, Math.floor(random() * matched.length))];
  let off = random() * total;
  for (let i = 0; i < matched.length; i++) {
    if (weights[i]! <= 0) continue;
    off -= weights[i]!;
    if (off < 0) return matched[i];
  }
  return matched[matched.length - 1];
}

const GO_DURATION = /^[+-]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/;
const DURATION_UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go's time.ParseDuration in milliseconds, or undefined. */
export function parseGoDuration(text: string): number | undefined {
  if (text === '0' || text === '+0' || text === '-0') return 0;
  if (!GO_DURATION.test(text)) return undefined;
  const sign = text.startsWith('-') ? -1 : 1;
  let total = 0;
  for (const m of text.replace(/^[+-]/, '').matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) total += Number(m[1]) * DURATION_UNITS[m[2]!]!;
  return sign * total;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** A `*From` query's first value as a duration: a time (that far from now) or a Go duration. */
function durationFrom(q: Query | undefined, obj: KubeObject, nowMs: number): number | undefined {
  const v = q?.run(obj)[0];
  if (typeof v !== 'string' || v === '') return undefined;
  if (RFC3339.test(v)) {
    const t = Date.parse(v);
    if (Number.isFinite(t)) return t - nowMs;
  }
  return parseGoDuration(v);
}

/**
 * How long to wait before playing `stage` on `obj` (KWOK's rule): the duration, and with a
 * jitter longer than it, a uniform draw between the two; a jitter shorter than the duration
 * is the delay. Never negative.
 */
export function stageDelayMs(stage: Stage, obj: KubeObject, nowMs: number, random: () => number): number {
  const d = stage.delay;
  if (!d) return 0;
  const duration = durationFrom(d.durationFrom, obj, nowMs) ?? d.durationMs;
  const jitter = d.jitterFrom || d.jitterMs !== undefined ? (durationFrom(d.jitterFrom, obj, nowMs) ?? d.jitterMs) : undefined;
  let delay = duration;
  if (jitter !== undefined) delay = jitter <= duration ? jitter : duration + Math.floor(random() * (jitter - duration));
  return Math.max(0, delay);
}

/** What one stage's next changes; at most one status write, after the finalizers. */
export interface StageOutcome {
  stage: string;
  event?: StageEvent;
  /** The object's finalizers afterwards, when they change. */
  finalizers?: string[];
  /** Delete the object (then nothing else is written: delete wins over a status, as in KWOK). */
  delete: boolean;
  /** The object's whole status afterwards, when it changes. */
  status?: Record<string, unknown>;
}

/** KWOK's finalizer edit: emptied or with some removed, then the added ones not already there. */
export function editFinalizers(current: readonly string[], f: StageFinalizers): string[] {
  const kept = f.empty ? [] : current.filter((x) => !f.remove.includes(x));
  const out = [...kept];
  for (const x of f.add) if (!out.includes(x)) out.push(x);
  return out;
}

const SCHEMA_TYPES: Record<SimulatedKind, string> = { Pod: 'io.k8s.api.core.v1.Pod', Node: 'io.k8s.api.core.v1.Node' };
/** The patch schemas, made once: each memoizes the flattened fields it has looked up. */
const schemas = new Map<SimulatedKind, ReturnType<typeof catalogPatchSchema>>();

function schemaOf(kind: SimulatedKind): ReturnType<typeof catalogPatchSchema> {
  let schema = schemas.get(kind);
  if (!schema) schemas.set(kind, (schema = catalogPatchSchema(SCHEMA_TYPES[kind])));
  return schema;
}

/**
 * The status after `patch` (what a stage renders for `status`), merged as KWOK merges it:
 * a strategic merge patch of the object (conditions by type, other lists replaced).
 */
export function mergeStatus(kind: SimulatedKind, obj: KubeObject, patch: Record<string, unknown>): Record<string, unknown> {
  const merged = applyStrategicMergePatch({ status: obj.status ?? {} }, { status: patch }, schemaOf(kind)) as { status?: unknown };
  return isPlainObject(merged.status) ? merged.status : {};
}

/** Renders a status template into the status change it stands for (YAML; empty is none). */
export function renderStatus(t: Template, obj: KubeObject, env: TemplateEnv): Record<string, unknown> {
  const text = t.render(obj, env);
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = readYaml(text);
  } catch (err) {
    throw new RenderError(`the rendered status is not YAML: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (value === null || value === undefined) return {};
  if (!isPlainObject(value)) throw new RenderError('the rendered status is not a mapping');
  return value;
}

/** What playing `stage` on `obj` changes (pure but for the env's functions, e.g. an address taken). */
export function playStage(stage: Stage, obj: KubeObject, env: TemplateEnv): StageOutcome {
  const out: StageOutcome = { stage: stage.name, delete: stage.next.delete };
  if (stage.next.event) out.event = stage.next.event;
  if (stage.next.finalizers) {
    const current = (obj.metadata?.finalizers ?? []).filter((f): f is string => typeof f === 'string');
    const next = editFinalizers(current, stage.next.finalizers);
    if (!deepEqual(current, next)) out.finalizers = next;
  }
  if (out.delete) return out;
  const patch = stage.next.status ? stage.next.status(obj, env) : stage.next.statusTemplate ? renderStatus(stage.next.statusTemplate, obj, env) : undefined;
  if (patch && Object.keys(patch).length > 0) {
    const status = mergeStatus(stage.kind, obj, patch);
    if (!deepEqual(status, obj.status ?? {})) out.status = status;
  }
  return out;
}

/** A Requirement's query compiled (a helper for the built-in stages). */
export function requirement(key: string, operator: SelectorOperator, values: string[] = []): Requirement {
  return { query: compileQuery(key), operator, values };
}
