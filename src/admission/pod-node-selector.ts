// PodNodeSelector: a namespace's node selector (its `scheduler.alpha.<long domain>/node-selector`
// annotation, else the cluster default of the plugin configuration) is merged into every new
// pod's `spec.nodeSelector`; a pod that contradicts it, or that leaves its namespace's
// whitelist, is refused.
//
// Configuration (the AdmissionConfiguration entry, inline or by path), the legacy format:
//   podNodeSelectorPluginConfig:
//     clusterDefaultNodeSelector: "env=prod"
//     <namespace>: "env=prod,tier=web"     # the labels pods of that namespace may select
// Unlike kube-apiserver, which ignores a configuration it cannot read, a malformed one stops
// the start: a whitelist silently dropped is a restriction silently off.
import { isQualifiedName, isValidLabelValue } from '../apimachinery/labels.js';
import { setOwn } from '../apimachinery/own.js';
import { isPlainObject, type KubeObject } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';
import { longDomainKey } from '../naming/index.js';
import { podForbidden, statuslessError } from './pod-spec-plugins.js';
import type { AdmissionAttributes, AdmissionPlugin } from './types.js';
import { isResource, specOf, stringMapAt } from './util.js';

const CONFIG_KEY = 'podNodeSelectorPluginConfig';
const CLUSTER_DEFAULT = 'clusterDefaultNodeSelector';

export type LabelSet = Map<string, string>;

export function namespaceNodeSelectorAnnotation(): string {
  return longDomainKey('node-selector', 'scheduler.alpha');
}

/** Parses `k=v,k2=v2` as Kubernetes' ConvertSelectorToLabelsMap does; throws Error with its message. */
export function parseSelectorLabels(selector: string): LabelSet {
  const out: LabelSet = new Map();
  if (selector === '') return out;
  for (const item of selector.split(',')) {
    const parts = item.split('=');
    if (parts.length !== 2) throw new Error(`invalid selector: [${parts.join(' ')}]`);
    const key = parts[0]!.trim();
    const keyErrors = isQualifiedName(key);
    if (keyErrors.length > 0) throw new Error(`: Invalid value: ${JSON.stringify(key)}: ${keyErrors.join('; ')}`);
    const value = parts[1]!.trim();
    const valueErrors = isValidLabelValue(value);
    if (valueErrors.length > 0) throw new Error(`: Invalid value: ${JSON.stringify(value)}: ${valueErrors.join('; ')}`);
    out.set(key, value);
  }
  return out;
}

/** Whether a key is in both sets with different values. */
export function labelsConflict(a: LabelSet, b: LabelSet): boolean {
  for (const [k, v] of a) if (b.has(k) && b.get(k) !== v) return true;
  return false;
}

/** Every label of `subset` is in `whitelist` with the same value; an empty whitelist allows all. */
function withinWhitelist(subset: LabelSet, whitelist: LabelSet): boolean {
  if (whitelist.size === 0) return true;
  for (const [k, v] of subset) if (whitelist.get(k) !== v) return false;
  return true;
}

export interface PodNodeSelectorConfig {
  /** Namespace name (or `clusterDefaultNodeSelector`) to its selector text. */
  selectors: Map<string, string>;
}

/** Reads the plugin's configuration; throws Error naming what is wrong. */
export function parsePodNodeSelectorConfig(config: Record<string, unknown>): PodNodeSelectorConfig {
  const selectors = new Map<string, string>();
  if (!Object.hasOwn(config, CONFIG_KEY) || config[CONFIG_KEY] === null) return { selectors };
  const raw = config[CONFIG_KEY];
  if (!isPlainObject(raw)) throw new Error(`PodNodeSelector configuration: ${CONFIG_KEY} must be a map of namespace to node selector`);
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value !== 'string') throw new Error(`PodNodeSelector configuration: ${CONFIG_KEY}[${JSON.stringify(name)}] must be a string`);
    try {
      parseSelectorLabels(value);
    } catch (e) {
      throw new Error(`PodNodeSelector configuration: ${CONFIG_KEY}[${JSON.stringify(name)}]: ${(e as Error).message}`);
    }
    selectors.set(name, value);
  }
  return { selectors };
}

function toLabelSet(map: Record<string, string>): LabelSet {
  return new Map(Object.entries(map));
}

export class PodNodeSelector implements AdmissionPlugin {
  readonly name = 'PodNodeSelector';
  readonly handles = (op: string): boolean => op === 'CREATE';

  constructor(
    private readonly client: ApiClient,
    private readonly config: PodNodeSelectorConfig,
  ) {}

  private async namespaceSelector(namespace: string): Promise<LabelSet> {
    const ns: KubeObject = await this.client.get({ group: '', version: 'v1', resource: 'namespaces' }, '', namespace);
    const annotations = stringMapAt(ns.metadata as Record<string, unknown> | undefined, 'annotations');
    const key = namespaceNodeSelectorAnnotation();
    try {
      if (Object.hasOwn(annotations, key)) return parseSelectorLabels(annotations[key]!);
      return parseSelectorLabels(this.config.selectors.get(CLUSTER_DEFAULT) ?? '');
    } catch (e) {
      throw statuslessError((e as Error).message);
    }
  }

  private applies(attrs: AdmissionAttributes): boolean {
    return isResource(attrs, '', 'pods') && attrs.object !== undefined;
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (!this.applies(attrs)) return;
    const nsSelector = await this.namespaceSelector(attrs.namespace);
    const spec = (specOf(attrs.object) ?? ((attrs.object!.spec = {}) as Record<string, unknown>));
    const podSelector = toLabelSet(stringMapAt(spec, 'nodeSelector'));
    if (labelsConflict(nsSelector, podSelector)) throw podForbidden(attrs, 'pod node label selector conflicts with its namespace node label selector');
    const merged: Record<string, string> = {};
    for (const [k, v] of nsSelector) setOwn(merged, k, v);
    for (const [k, v] of podSelector) setOwn(merged, k, v);
    if (Object.keys(merged).length > 0) spec.nodeSelector = merged;
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!this.applies(attrs)) return;
    const nsSelector = await this.namespaceSelector(attrs.namespace);
    const podSelector = toLabelSet(stringMapAt(specOf(attrs.object), 'nodeSelector'));
    if (labelsConflict(nsSelector, podSelector)) throw podForbidden(attrs, 'pod node label selector conflicts with its namespace node label selector');
    let whitelist: LabelSet;
    try {
      whitelist = parseSelectorLabels(this.config.selectors.get(attrs.namespace) ?? '');
    } catch (e) {
      throw statuslessError((e as Error).message);
    }
    if (!withinWhitelist(podSelector, whitelist)) throw podForbidden(attrs, 'pod node label selector labels conflict with its namespace whitelist');
  }
}
