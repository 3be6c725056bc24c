// The simulated nodes' configuration (`--simulated-node-config`, repeatable): YAML files of
// several documents, KWOK's `Stage`, `Logs` and `ClusterLogs` (kwok.x-k8s.io/v1alpha1), and
// at most one `v1` `Node` used as the template of the nodes `--simulated-nodes` creates.
// Everything is checked at load; what is not supported is refused naming the file and the
// document, so that no part of a configuration is silently ignored.

import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { getOwn } from '../apimachinery/own.js';
import { isPlainObject, type KubeObject } from '../apimachinery/types.js';
import { KWOK_GROUP } from '../naming/index.js';
import { compileQuery, QueryError, type Query } from './query.js';
import { compileTemplate, TemplateError } from './template.js';
import type { Requirement, SelectorOperator, SimulatedKind, Stage, StageDelay, StageEvent, StageFinalizers, StageNext } from './stage.js';

/** A configuration that cannot be used; the message names the file and the document. */
export class SimulatedNodeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SimulatedNodeConfigError';
  }
}

/** Where a container's log comes from (KWOK's `Log`). */
export interface LogSource {
  /** Containers it is for; empty: every container not named by another entry. */
  containers: string[];
  logsFile?: string;
  previousLogsFile?: string;
  follow: boolean;
}

/** KWOK's `Logs`: the logs of one pod. */
export interface PodLogs {
  namespace: string;
  name: string;
  logs: LogSource[];
}

/** KWOK's `ClusterLogs`: the logs of the pods a selector picks (every pod without one). */
export interface ClusterLogs {
  name: string;
  matchNamespaces: string[];
  matchNames: string[];
  logs: LogSource[];
}

export interface SimulatedNodeConfig {
  stages: Stage[];
  logs: PodLogs[];
  clusterLogs: ClusterLogs[];
  /** The template of created nodes (labels, annotations, spec, status capacity, allocatable, nodeInfo). */
  nodeTemplate?: KubeObject;
}

/** A document and where it came from. */
export interface ConfigDocument {
  source: string;
  /** Its place in the file (1-based), for messages; counted among the source's documents when absent. */
  index?: number;
  object: Record<string, unknown>;
}

const MAX_FILE_BYTES = 16 * 1024 * 1024;
const KWOK_API_VERSION = `${KWOK_GROUP}/v1alpha1`;

type Obj = Record<string, unknown>;

class Checker {
  constructor(private readonly where: string) {}

  fail(path: string, problem: string): never {
    throw new SimulatedNodeConfigError(`${this.where}: ${path ? `${path}: ` : ''}${problem}`);
  }

  obj(v: unknown, path: string): Obj {
    if (v === undefined || v === null) return {};
    if (!isPlainObject(v)) this.fail(path, 'must be a mapping');
    return v;
  }

  only(o: Obj, path: string, allowed: readonly string[], why: Record<string, string> = {}): void {
    for (const k of Object.keys(o)) {
      if (allowed.includes(k)) continue;
      const reason = getOwn(why, k);
      this.fail(path ? `${path}.${k}` : k, reason ?? `is not a field of this document (known: ${allowed.join(', ')})`);
    }
  }

  str(v: unknown, path: string, required = false): string {
    if (v === undefined || v === null) {
      if (required) this.fail(path, 'is required');
      return '';
    }
    if (typeof v !== 'string') this.fail(path, 'must be a string');
    return v;
  }

  bool(v: unknown, path: string): boolean {
    if (v === undefined || v === null) return false;
    if (typeof v !== 'boolean') this.fail(path, 'must be true or false');
    return v;
  }

  int(v: unknown, path: string): number | undefined {
    if (v === undefined || v === null) return undefined;
    const n = typeof v === 'bigint' ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) this.fail(path, 'must be a whole number, 0 or more');
    return n;
  }

  strings(v: unknown, path: string): string[] {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) this.fail(path, 'must be a list of strings');
    return v as string[];
  }

  stringMap(v: unknown, path: string): Record<string, string> | undefined {
    if (v === undefined || v === null) return undefined;
    const o = this.obj(v, path);
    const out: Record<string, string> = {};
    for (const [k, x] of Object.entries(o)) {
      if (typeof x !== 'string') this.fail(`${path}.${k}`, 'must be a string');
      Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  query(v: unknown, path: string): Query {
    const text = this.str(v, path, true);
    try {
      return compileQuery(text);
    } catch (err) {
      if (err instanceof QueryError) this.fail(path, `expression ${JSON.stringify(text)}: ${err.message}`);
      throw err;
    }
  }

  /** KWOK's `ExpressionFrom`: `expressionFrom` or `jq.expression` (CEL is not supported). */
  expressionFrom(v: unknown, path: string): Query | undefined {
    if (v === undefined || v === null) return undefined;
    const o = this.obj(v, path);
    this.only(o, path, ['expressionFrom', 'jq'], { cel: 'CEL expressions are not supported; use expressionFrom (JQ)' });
    if (o.jq !== undefined) {
      const jq = this.obj(o.jq, `${path}.jq`);
      this.only(jq, `${path}.jq`, ['expression']);
      return this.query(jq.expression, `${path}.jq.expression`);
    }
    return this.query(o.expressionFrom, `${path}.expressionFrom`);
  }
}

const OPERATORS: readonly SelectorOperator[] = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

function requirementOf(c: Checker, v: unknown, path: string): Requirement {
  let o = c.obj(v, path);
  c.only(o, path, ['key', 'operator', 'values', 'jq'], { cel: 'CEL selectors are not supported; use key, operator and values (JQ)' });
  if (o.jq !== undefined) {
    path = `${path}.jq`;
    o = c.obj(o.jq, path);
    c.only(o, path, ['key', 'operator', 'values']);
  }
  const operator = c.str(o.operator, `${path}.operator`, true);
  if (!OPERATORS.includes(operator as SelectorOperator)) c.fail(`${path}.operator`, `must be one of ${OPERATORS.join(', ')}, not ${JSON.stringify(operator)}`);
  const values = c.strings(o.values, `${path}.values`);
  if ((operator === 'In' || operator === 'NotIn') && values.length === 0) c.fail(`${path}.values`, `must not be empty for ${operator}`);
  if ((operator === 'Exists' || operator === 'DoesNotExist') && values.length > 0) c.fail(`${path}.values`, `must be empty for ${operator}`);
  return { query: c.query(o.key, `${path}.key`), operator: operator as SelectorOperator, values };
}

function finalizerItems(c: Checker, v: unknown, path: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) c.fail(path, 'must be a list of {value: <finalizer>}');
  return v.map((item, i) => {
    const o = c.obj(item, `${path}[${i}]`);
    c.only(o, `${path}[${i}]`, ['value']);
    return c.str(o.value, `${path}[${i}].value`, true);
  });
}

function stageOf(doc: ConfigDocument, index: number): Stage {
  const top = doc.object;
  const metadata = isPlainObject(top.metadata) ? top.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  const c: Checker = new Checker(`${doc.source}: document ${index + 1}: Stage ${JSON.stringify(name)}`);
  if (name === '') c.fail('metadata.name', 'is required');
  c.only(top, '', ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
  const spec = c.obj(top.spec, 'spec');
  c.only(spec, 'spec', ['resourceRef', 'selector', 'weight', 'weightFrom', 'delay', 'next', 'immediateNextStage'], {
    steps: 'is not supported; use next',
  });
  const ref = c.obj(spec.resourceRef, 'spec.resourceRef');
  c.only(ref, 'spec.resourceRef', ['apiGroup', 'kind']);
  const apiGroup = c.str(ref.apiGroup, 'spec.resourceRef.apiGroup');
  const kind = c.str(ref.kind, 'spec.resourceRef.kind', true);
  // KWOK writes the core group's version here (`apiGroup: v1`).
  if (apiGroup !== '' && apiGroup !== 'v1') c.fail('spec.resourceRef.apiGroup', `must be "v1" (the core group), not ${JSON.stringify(apiGroup)}`);
  if (kind !== 'Pod' && kind !== 'Node') c.fail('spec.resourceRef.kind', `simulated nodes play stages of Pod and Node only, not ${JSON.stringify(kind)}`);
  const simulatedKind: SimulatedKind = kind;
  if (spec.selector === undefined || spec.selector === null) c.fail('spec.selector', 'is required (a stage without one never matches)');
  const selector = c.obj(spec.selector, 'spec.selector');
  c.only(selector, 'spec.selector', ['matchLabels', 'matchAnnotations', 'matchExpressions']);
  const matchLabels = c.stringMap(selector.matchLabels, 'spec.selector.matchLabels');
  const matchAnnotations = c.stringMap(selector.matchAnnotations, 'spec.selector.matchAnnotations');
  const exprs: unknown = selector.matchExpressions ?? [];
  if (!Array.isArray(exprs)) c.fail('spec.selector.matchExpressions', 'must be a list');
  const matchExpressions = exprs.map((e, i) => requirementOf(c, e, `spec.selector.matchExpressions[${i}]`));

  let delay: StageDelay | undefined;
  if (spec.delay !== undefined && spec.delay !== null) {
    const d = c.obj(spec.delay, 'spec.delay');
    c.only(d, 'spec.delay', ['durationMilliseconds', 'durationFrom', 'jitterDurationMilliseconds', 'jitterDurationFrom']);
    const jitterMs = c.int(d.jitterDurationMilliseconds, 'spec.delay.jitterDurationMilliseconds');
    const durationFrom = c.expressionFrom(d.durationFrom, 'spec.delay.durationFrom');
    const jitterFrom = c.expressionFrom(d.jitterDurationFrom, 'spec.delay.jitterDurationFrom');
    delay = {
      durationMs: c.int(d.durationMilliseconds, 'spec.delay.durationMilliseconds') ?? 0,
      ...(durationFrom ? { durationFrom } : {}),
      ...(jitterMs !== undefined ? { jitterMs } : {}),
      ...(jitterFrom ? { jitterFrom } : {}),
    };
  }

  const nextObj = c.obj(spec.next, 'spec.next');
  c.only(nextObj, 'spec.next', ['statusTemplate', 'event', 'finalizers', 'delete'], {
    patches: 'is not supported; use statusTemplate',
    statusSubresource: 'is not supported: the status of pods and nodes is their status subresource',
    statusPatchAs: 'is not supported: the node agent writes as itself',
  });
  const next: StageNext = { delete: c.bool(nextObj.delete, 'spec.next.delete') };
  const templateText = c.str(nextObj.statusTemplate, 'spec.next.statusTemplate');
  if (templateText !== '') {
    try {
      next.statusTemplate = compileTemplate(templateText);
    } catch (err) {
      if (err instanceof TemplateError) c.fail('spec.next.statusTemplate', err.message);
      throw err;
    }
  }
  if (nextObj.event !== undefined && nextObj.event !== null) {
    const e = c.obj(nextObj.event, 'spec.next.event');
    c.only(e, 'spec.next.event', ['type', 'reason', 'message']);
    const type = c.str(e.type, 'spec.next.event.type', true);
    if (type !== 'Normal' && type !== 'Warning') c.fail('spec.next.event.type', `must be Normal or Warning, not ${JSON.stringify(type)}`);
    const event: StageEvent = { type: type as StageEvent['type'], reason: c.str(e.reason, 'spec.next.event.reason', true), message: c.str(e.message, 'spec.next.event.message') };
    next.event = event;
  }
  if (nextObj.finalizers !== undefined && nextObj.finalizers !== null) {
    const f = c.obj(nextObj.finalizers, 'spec.next.finalizers');
    c.only(f, 'spec.next.finalizers', ['add', 'remove', 'empty']);
    const finalizers: StageFinalizers = {
      add: finalizerItems(c, f.add, 'spec.next.finalizers.add'),
      remove: finalizerItems(c, f.remove, 'spec.next.finalizers.remove'),
      empty: c.bool(f.empty, 'spec.next.finalizers.empty'),
    };
    next.finalizers = finalizers;
  }
  if (!next.delete && !next.statusTemplate && !next.event && !next.finalizers) c.fail('spec.next', 'does nothing: give statusTemplate, event, finalizers or delete');

  const weightFrom = c.expressionFrom(spec.weightFrom, 'spec.weightFrom');
  return {
    name,
    source: doc.source,
    kind: simulatedKind,
    ...(matchLabels ? { matchLabels } : {}),
    ...(matchAnnotations ? { matchAnnotations } : {}),
    matchExpressions,
    weight: c.int(spec.weight, 'spec.weight') ?? 0,
    ...(weightFrom ? { weightFrom } : {}),
    ...(delay ? { delay } : {}),
    next,
    immediateNextStage: c.bool(spec.immediateNextStage, 'spec.immediateNextStage'),
  };
}

function logSources(c: Checker, v: unknown, path: string, baseDir: string): LogSource[] {
  if (!Array.isArray(v) || v.length === 0) c.fail(path, 'must be a non-empty list');
  return v.map((item, i) => {
    const p = `${path}[${i}]`;
    const o = c.obj(item, p);
    c.only(o, p, ['containers', 'logsFile', 'previousLogsFile', 'follow']);
    const file = c.str(o.logsFile, `${p}.logsFile`);
    const previous = c.str(o.previousLogsFile, `${p}.previousLogsFile`);
    // Relative paths are read from the configuration file's directory.
    return {
      containers: c.strings(o.containers, `${p}.containers`),
      ...(file ? { logsFile: resolve(baseDir, file) } : {}),
      ...(previous ? { previousLogsFile: resolve(baseDir, previous) } : {}),
      follow: c.bool(o.follow, `${p}.follow`),
    };
  });
}

function logsOf(doc: ConfigDocument, index: number, baseDir: string): PodLogs {
  const top = doc.object;
  const metadata = isPlainObject(top.metadata) ? top.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  const c: Checker = new Checker(`${doc.source}: document ${index + 1}: Logs ${JSON.stringify(name)}`);
  if (name === '') c.fail('metadata.name', 'is required (the pod)');
  c.only(top, '', ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
  const spec = c.obj(top.spec, 'spec');
  c.only(spec, 'spec', ['logs']);
  return { name, namespace: c.str(metadata.namespace, 'metadata.namespace') || 'default', logs: logSources(c, spec.logs, 'spec.logs', baseDir) };
}

function clusterLogsOf(doc: ConfigDocument, index: number, baseDir: string): ClusterLogs {
  const top = doc.object;
  const metadata = isPlainObject(top.metadata) ? top.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  const c: Checker = new Checker(`${doc.source}: document ${index + 1}: ClusterLogs ${JSON.stringify(name)}`);
  c.only(top, '', ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
  const spec = c.obj(top.spec, 'spec');
  c.only(spec, 'spec', ['selector', 'logs']);
  const selector = c.obj(spec.selector, 'spec.selector');
  c.only(selector, 'spec.selector', ['matchNamespaces', 'matchNames']);
  return {
    name,
    matchNamespaces: c.strings(selector.matchNamespaces, 'spec.selector.matchNamespaces'),
    matchNames: c.strings(selector.matchNames, 'spec.selector.matchNames'),
    logs: logSources(c, spec.logs, 'spec.logs', baseDir),
  };
}

/** The template's spec: what every created node shares (taints, unschedulable, ...), not what is each node's own. */
function templateSpec(c: Checker, v: unknown): Obj {
  const spec = c.obj(v, 'spec');
  for (const own of ['podCIDR', 'podCIDRs', 'providerID']) {
    if (spec[own] !== undefined) c.fail(`spec.${own}`, "is each node's own, not a template field (the node IPAM controller assigns pod ranges)");
  }
  return spec;
}

function nodeTemplateOf(doc: ConfigDocument, index: number): KubeObject {
  const top = doc.object;
  const c: Checker = new Checker(`${doc.source}: document ${index + 1}: Node template`);
  c.only(top, '', ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
  const metadata = c.obj(top.metadata, 'metadata');
  c.only(metadata, 'metadata', ['name', 'labels', 'annotations']);
  const name = c.str(metadata.name, 'metadata.name');
  if (name !== '' && !/^[a-z0-9]([-a-z0-9.]{0,200}[a-z0-9])?$/.test(name)) c.fail('metadata.name', 'must be a DNS subdomain (the nodes are named <name>-000000, ...)');
  const labels = c.stringMap(metadata.labels, 'metadata.labels');
  const annotations = c.stringMap(metadata.annotations, 'metadata.annotations');
  const status = c.obj(top.status, 'status');
  c.only(status, 'status', ['capacity', 'allocatable', 'nodeInfo'], { addresses: 'is not a template field: each node gets its own addresses' });
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { ...(name ? { name } : {}), ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) },
    ...(top.spec !== undefined ? { spec: templateSpec(c, top.spec) } : {}),
    status,
  };
}

/** Reads documents into a configuration; throws SimulatedNodeConfigError. */
export function configFromDocuments(docs: readonly ConfigDocument[]): SimulatedNodeConfig {
  const config: SimulatedNodeConfig = { stages: [], logs: [], clusterLogs: [] };
  const counts = new Map<string, number>();
  for (const doc of docs) {
    const counted = counts.get(doc.source) ?? 0;
    counts.set(doc.source, counted + 1);
    const index = doc.index !== undefined ? doc.index - 1 : counted;
    const apiVersion = getOwn(doc.object, 'apiVersion');
    const kind = getOwn(doc.object, 'kind');
    const where = `${doc.source}: document ${index + 1}`;
    const baseDir = doc.source.startsWith('/') ? dirname(doc.source) : process.cwd();
    if (apiVersion === KWOK_API_VERSION && kind === 'Stage') config.stages.push(stageOf(doc, index));
    else if (apiVersion === KWOK_API_VERSION && kind === 'Logs') config.logs.push(logsOf(doc, index, baseDir));
    else if (apiVersion === KWOK_API_VERSION && kind === 'ClusterLogs') config.clusterLogs.push(clusterLogsOf(doc, index, baseDir));
    else if (apiVersion === 'v1' && kind === 'Node') {
      if (config.nodeTemplate) throw new SimulatedNodeConfigError(`${where}: a second Node template (one is allowed)`);
      config.nodeTemplate = nodeTemplateOf(doc, index);
    } else {
      throw new SimulatedNodeConfigError(
        `${where}: ${String(apiVersion)} ${String(kind)} is not supported (Stage, Logs and ClusterLogs of ${KWOK_API_VERSION}, or a v1 Node template)`,
      );
    }
  }
  return config;
}

/** The documents of one file's text (empty documents skipped). */
export function parseConfigText(source: string, text: string): ConfigDocument[] {
  const out: ConfigDocument[] = [];
  let n = 0;
  for (const doc of parseAllDocuments(text, { logLevel: 'silent', intAsBigInt: false })) {
    n++;
    if (doc.errors.length > 0) throw new SimulatedNodeConfigError(`${source}: document ${n}: ${doc.errors[0]!.message}`);
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      throw new SimulatedNodeConfigError(`${source}: document ${n}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (value === null || value === undefined) continue;
    if (!isPlainObject(value)) throw new SimulatedNodeConfigError(`${source}: document ${n}: not a mapping`);
    out.push({ source, index: n, object: value });
  }
  return out;
}

/** Reads the files (absolute paths in messages), then `extra` documents, into one configuration. */
export async function loadSimulatedNodeConfig(files: readonly string[], extra: readonly ConfigDocument[] = []): Promise<SimulatedNodeConfig> {
  const docs: ConfigDocument[] = [];
  for (const f of files) {
    const path = resolve(f);
    let text: string;
    try {
      const buf = await readFile(path);
      if (buf.length > MAX_FILE_BYTES) throw new Error(`larger than ${MAX_FILE_BYTES} bytes`);
      text = buf.toString('utf8');
    } catch (err) {
      throw new SimulatedNodeConfigError(`${path}: cannot read: ${err instanceof Error ? err.message : String(err)}`);
    }
    docs.push(...parseConfigText(path, text));
  }
  return configFromDocuments([...docs, ...extra]);
}

export function emptyConfig(): SimulatedNodeConfig {
  return { stages: [], logs: [], clusterLogs: [] };
}

/** The stages of each kind: the configuration's, or the built-in ones where it gives none. */
export function stagesOf(config: SimulatedNodeConfig, kind: 'Pod' | 'Node', defaults: () => Stage[]): Stage[] {
  const given = config.stages.filter((s) => s.kind === kind);
  return given.length > 0 ? given : defaults();
}
