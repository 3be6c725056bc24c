// The built-in resources as ResourceDefinitions: the surface data, filtered by
// `--runtime-config`, with served group names, storage locations, strategies and
// conversions attached.
import { fromKubernetesApiVersion, fromKubernetesGroup } from '../naming/index.js';
import type { ResourceDefinition, Strategy, SubresourceDefinition } from '../rest/index.js';
import { withoutValidationRules } from './apiextensions/gated-fields.js';
import { conversionFor, kindSpecFor, servedVariantFor } from './kinds.js';
import { enabledResources, parseRuntimeConfig } from './runtime-config.js';
import { makeStrategy, type KindSpec, type SubresourceDeclaration } from './strategy.js';
import { surface, type SurfaceResource } from './surface.js';

export interface BuiltinOptions {
  /** The `--runtime-config` flag's value. */
  runtimeConfig?: string;
  /** The CustomResourceValidationExpressions gate (default on): off drops `x-kubernetes-validations` from definitions written. */
  customResourceValidationExpressions?: boolean;
}

/** Every resource served by default, plus or minus what `runtimeConfig` switches. */
export function builtinResourceDefinitions(opts: BuiltinOptions = {}): ResourceDefinition[] {
  const rows = enabledResources(surface(), parseRuntimeConfig(opts.runtimeConfig ?? ''));
  const preferred = preferredVersions(rows);
  // One Strategy per stored kind, shared by the versions stored in the same place unless a
  // served version writes it with rules of its own.
  const strategies = new Map<string, Strategy>();
  const defs = rows.map((row) => toDefinition(row, preferred, strategies));
  if (opts.customResourceValidationExpressions === false) {
    for (const d of defs) if (d.resource === 'customresourcedefinitions' && d.group === fromKubernetesGroup('apiextensions.k8s.io') && d.strategy) d.strategy = withoutValidationRules(d.strategy);
  }
  return defs;
}

function toDefinition(row: SurfaceResource, preferred: Map<string, string>, strategies: Map<string, Strategy>): ResourceDefinition {
  const group = fromKubernetesGroup(row.group);
  const spec = kindSpecOf(row);
  const def: ResourceDefinition = {
    group,
    version: row.version,
    resource: row.resource,
    kind: row.kind,
    singularName: row.singularName,
    namespaced: row.namespaced,
    shortNames: [...row.shortNames],
    categories: [...row.categories],
    verbs: [...row.verbs],
    subresources: row.subresources.map((s) => subresource(row, s, spec)),
    preferred: preferred.get(group) === row.version,
  };
  if (row.deprecated) {
    const dep: NonNullable<ResourceDefinition['deprecated']> = {};
    if (row.deprecated.since) dep.since = row.deprecated.since;
    if (row.deprecated.removedIn) dep.removedIn = row.deprecated.removedIn;
    if (row.deprecated.replacement) {
      const [apiVersion, kind] = row.deprecated.replacement.split(' ');
      dep.replacement = `${fromKubernetesApiVersion(apiVersion)} ${kind}`;
    }
    def.deprecated = dep;
  }
  if (!row.storage) {
    // A virtual resource: the server provides its store; it may print columns of its own.
    if (spec.handler) def.handler = spec.handler;
    if (spec.table) def.table = spec.table;
  }
  if (row.storage) {
    const storage = { group: fromKubernetesGroup(row.storage.group), resource: row.storage.resource, version: row.storage.version };
    def.storage = storage;
    const shape = { namespaced: row.namespaced, hasStatus: row.subresources.some((s) => s.name === 'status') };
    const variant = servedVariantFor(row);
    const key = `${storage.group}/${storage.resource}`;
    let strategy = variant ? makeStrategy(variant, shape) : strategies.get(key);
    if (!strategy) {
      strategy = makeStrategy(kindSpecFor(row.storage.group, row.kind), shape);
      strategies.set(key, strategy);
    }
    def.strategy = strategy;
    if (row.storage.group !== row.group || row.storage.version !== row.version) {
      const conversion = conversionFor(row);
      if (!conversion) throw new Error(`no conversion from ${row.group}/${row.version} ${row.kind} to its storage version`);
      def.conversion = conversion;
    }
  }
  return def;
}

/** The declarations of the kind a row serves: its served variant's, else its storage kind's. */
function kindSpecOf(row: SurfaceResource): KindSpec {
  return servedVariantFor(row) ?? kindSpecFor(row.storage?.group ?? row.group, row.kind);
}

/** Who serves a subresource: the kind's declaration; the Store's status and scale rules by default. */
function servingOf(row: SurfaceResource, name: string, spec: KindSpec): SubresourceDeclaration {
  const declared = spec.subresources && Object.hasOwn(spec.subresources, name) ? spec.subresources[name] : undefined;
  if (declared) return declared;
  if (name === 'status') return { serving: { by: 'status' } };
  if (name === 'scale') return { serving: { by: 'scale' } };
  throw new Error(`${row.group}/${row.version} ${row.resource}/${name}: the kind does not declare who serves it`);
}

function subresource(row: SurfaceResource, s: SurfaceResource['subresources'][number], spec: KindSpec): SubresourceDefinition {
  const { serving, connect } = servingOf(row, s.name, spec);
  const out: SubresourceDefinition = { name: s.name, kind: s.kind, verbs: [...s.verbs], serving };
  if (connect) out.connect = connect;
  if (s.group !== undefined) out.group = fromKubernetesGroup(s.group);
  if (s.version !== undefined) out.version = s.version;
  // The eviction subresource takes the Eviction of policy/v1beta1 as well (Kubernetes' AcceptsGroupVersion).
  if (s.kind === 'Eviction' && s.group === 'policy' && s.version === 'v1') out.acceptedVersions = ['v1beta1'];
  return out;
}

/**
 * The preferred version per served group: the default one when it is served, otherwise
 * the most stable served version (GA over beta over alpha, higher numbers first).
 */
function preferredVersions(rows: SurfaceResource[]): Map<string, string> {
  const byGroup = new Map<string, SurfaceResource[]>();
  for (const r of rows) {
    const g = fromKubernetesGroup(r.group);
    byGroup.set(g, [...(byGroup.get(g) ?? []), r]);
  }
  const out = new Map<string, string>();
  for (const [g, rs] of byGroup) {
    const pref = rs.find((r) => r.preferred);
    out.set(g, pref ? pref.version : [...new Set(rs.map((r) => r.version))].sort(compareVersionPriority)[0]);
  }
  return out;
}

/** Kubernetes' version priority: GA > beta > alpha, then the higher major, then the higher minor. */
export function compareVersionPriority(a: string, b: string): number {
  const parse = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [-1, 0, 0];
    const stage = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0;
    return [stage, Number(m[1]), Number(m[3] ?? 0)];
  };
  const [sa, ma, na] = parse(a);
  const [sb, mb, nb] = parse(b);
  return sb - sa || mb - ma || nb - na || (a < b ? -1 : a > b ? 1 : 0);
}
