// PodTolerationRestriction: new pods get their namespace's default tolerations (annotation
// `scheduler.alpha.<long domain>/defaultTolerations`, else the plugin configuration's
// `default`), every pod that is not BestEffort tolerates the memory-pressure taint, and a
// pod's tolerations must each be covered by its namespace's whitelist (annotation
// `.../tolerationsWhitelist`, else the configuration's `whitelist`).
//
// Configuration: `kind: Configuration`, `apiVersion: podtolerationrestriction.admission.<domain>/v1`
// (or `v1alpha1`), with `default` and `whitelist` lists of tolerations.
import { isPlainObject, type KubeObject } from '../apimachinery/types.js';
import { deepEqual } from '../apimachinery/equality.js';
import type { ApiClient } from '../client/types.js';
import { group, longDomainKey } from '../naming/index.js';
import { quantityNanos } from '../schema/quantity.js';
import { statuslessError, createOrUpdate } from './pod-spec-plugins.js';
import type { AdmissionAttributes, AdmissionPlugin } from './types.js';
import { isResource, mapsAt, specOf, stringMapAt, type JsonMap } from './util.js';

export type Toleration = JsonMap;

export function defaultTolerationsAnnotation(): string {
  return longDomainKey('defaultTolerations', 'scheduler.alpha');
}

export function tolerationsWhitelistAnnotation(): string {
  return longDomainKey('tolerationsWhitelist', 'scheduler.alpha');
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Whether toleration `ss` tolerates every taint `t` tolerates. */
export function isSuperset(ss: Toleration, t: Toleration): boolean {
  if (deepEqual(ss, t)) return true;
  const ssOp = str(ss.operator);
  if (str(t.key) !== str(ss.key) && (str(ss.key) !== '' || ssOp !== 'Exists')) return false;
  // An empty effect covers every effect.
  if (str(t.effect) !== str(ss.effect) && str(ss.effect) !== '') return false;
  if (str(ss.effect) === 'NoExecute' && typeof ss.tolerationSeconds === 'number') {
    if (typeof t.tolerationSeconds !== 'number' || t.tolerationSeconds > ss.tolerationSeconds) return false;
  }
  switch (ssOp) {
    case 'Equal':
    case '':
      return (str(t.operator) === 'Equal' || str(t.operator) === '') && str(t.value) === str(ss.value);
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** The union of both lists without a toleration another one covers (of equal ones, the first stays). */
export function mergeTolerations(first: Toleration[], second: Toleration[]): Toleration[] {
  const all = [...first, ...second];
  const merged: Toleration[] = [];
  all.forEach((t, i) => {
    if (merged.some((m) => isSuperset(m, t))) return;
    if (all.slice(i + 1).some((later) => !deepEqual(t, later) && isSuperset(later, t))) return;
    merged.push(t);
  });
  return merged;
}

/** Every toleration is covered by some whitelist entry (an empty whitelist allows all). */
export function verifyAgainstWhitelist(tolerations: Toleration[], whitelist: Toleration[]): boolean {
  if (whitelist.length === 0 || tolerations.length === 0) return true;
  return tolerations.every((t) => whitelist.some((w) => isSuperset(w, t)));
}

const OPERATORS = new Set(['', 'Equal', 'Exists']);
const EFFECTS = new Set(['', 'NoSchedule', 'PreferNoSchedule', 'NoExecute']);
const TOLERATION_FIELDS = new Set(['key', 'operator', 'value', 'effect', 'tolerationSeconds']);

/** Reads a list of v1 tolerations from JSON-like data; throws Error naming `where`. */
export function readTolerations(value: unknown, where: string): Toleration[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Error(`${where}: json: cannot unmarshal ${typeof value === 'object' ? 'object' : typeof value} into Go value of type []v1.Toleration`);
  return value.map((t, i) => {
    if (!isPlainObject(t)) throw new Error(`${where}[${i}]: a toleration must be an object`);
    const out: Toleration = {};
    for (const [k, v] of Object.entries(t)) {
      if (!TOLERATION_FIELDS.has(k)) continue; // unknown fields are dropped, as decoding into the Go type does
      if (k === 'tolerationSeconds') {
        if (v !== null && (typeof v !== 'number' || !Number.isInteger(v))) throw new Error(`${where}[${i}].tolerationSeconds must be an integer`);
      } else if (v !== null && typeof v !== 'string') {
        throw new Error(`${where}[${i}].${k} must be a string`);
      }
      if (v !== null) out[k] = v;
    }
    if (!OPERATORS.has(str(out.operator))) throw new Error(`${where}[${i}].operator: Unsupported value: ${JSON.stringify(out.operator)}: supported values: "Equal", "Exists"`);
    if (!EFFECTS.has(str(out.effect))) throw new Error(`${where}[${i}].effect: Unsupported value: ${JSON.stringify(out.effect)}: supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`);
    return out;
  });
}

export interface PodTolerationRestrictionConfig {
  default?: Toleration[];
  whitelist?: Toleration[];
}

/** Reads the plugin's configuration ({} when the entry has none); throws Error on anything else. */
export function parsePodTolerationRestrictionConfig(config: Record<string, unknown>): PodTolerationRestrictionConfig {
  if (Object.keys(config).length === 0) return {};
  const accepted = ['v1', 'v1alpha1'].map((v) => `${group('podtolerationrestriction.admission')}/${v}`);
  if (config.kind !== 'Configuration' || typeof config.apiVersion !== 'string' || !accepted.includes(config.apiVersion)) {
    throw new Error(`PodTolerationRestriction configuration: expected kind Configuration in ${accepted.join(' or ')}`);
  }
  const out: PodTolerationRestrictionConfig = {};
  if (Object.hasOwn(config, 'default')) out.default = readTolerations(config.default, 'PodTolerationRestriction configuration: default');
  if (Object.hasOwn(config, 'whitelist')) out.whitelist = readTolerations(config.whitelist, 'PodTolerationRestriction configuration: whitelist');
  return out;
}

/** A pod with no positive cpu or memory request or limit in any (init) container. */
export function isBestEffort(spec: JsonMap | undefined): boolean {
  for (const list of ['initContainers', 'containers']) {
    for (const c of mapsAt(spec, list)) {
      const resources = isPlainObject(c.resources) ? c.resources : {};
      for (const part of ['requests', 'limits']) {
        const values = resources[part];
        if (!isPlainObject(values)) continue;
        for (const name of ['cpu', 'memory']) {
          const nanos = Object.hasOwn(values, name) ? quantityNanos(values[name]) : undefined;
          if (nanos !== undefined && nanos > 0n) return false;
        }
      }
    }
  }
  return true;
}

export class PodTolerationRestriction implements AdmissionPlugin {
  readonly name = 'PodTolerationRestriction';
  readonly handles = createOrUpdate;

  constructor(
    private readonly client: ApiClient,
    private readonly config: PodTolerationRestrictionConfig,
  ) {}

  /** The namespace annotation's tolerations: undefined when absent, [] when empty. */
  private async namespaceTolerations(namespace: string, key: string): Promise<Toleration[] | undefined> {
    const ns: KubeObject = await this.client.get({ group: '', version: 'v1', resource: 'namespaces' }, '', namespace);
    const annotations = stringMapAt(ns.metadata as Record<string, unknown> | undefined, 'annotations');
    if (!Object.hasOwn(annotations, key)) return undefined;
    const text = annotations[key]!;
    if (text === '') return [];
    try {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (e) {
        throw new Error((e as Error).message);
      }
      return readTolerations(parsed, key);
    } catch (e) {
      throw statuslessError((e as Error).message);
    }
  }

  private applies(attrs: AdmissionAttributes): boolean {
    return isResource(attrs, '', 'pods') && attrs.object !== undefined;
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (!this.applies(attrs)) return;
    const object = attrs.object!;
    if (!isPlainObject(object.spec)) object.spec = {};
    const spec = object.spec as JsonMap;
    let extra: Toleration[] = [];
    if (attrs.operation === 'CREATE') {
      extra = [...((await this.namespaceTolerations(attrs.namespace, defaultTolerationsAnnotation())) ?? this.config.default ?? [])];
    }
    if (!isBestEffort(spec)) extra.push({ key: longDomainKey('memory-pressure', 'node'), operator: 'Exists', effect: 'NoSchedule' });
    if (extra.length > 0) spec.tolerations = mergeTolerations(mapsAt(spec, 'tolerations'), structuredClone(extra));
    await this.validate(attrs);
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!this.applies(attrs)) return;
    const tolerations = mapsAt(specOf(attrs.object), 'tolerations');
    if (tolerations.length === 0) return;
    let whitelist = await this.namespaceTolerations(attrs.namespace, tolerationsWhitelistAnnotation());
    let scope = 'namespace';
    if (whitelist === undefined) {
      whitelist = this.config.whitelist ?? [];
      scope = 'cluster';
    }
    if (!verifyAgainstWhitelist(tolerations, whitelist)) {
      throw statuslessError(`pod tolerations (possibly merged with namespace default tolerations) conflict with its ${scope} whitelist`);
    }
  }
}
