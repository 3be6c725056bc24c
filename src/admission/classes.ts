// Plugins that resolve a class object by name or pick the default one: Priority,
// DefaultStorageClass, DefaultIngressClass, RuntimeClass, and PersistentVolumeClaimResize
// (which asks the claim's storage class whether volumes may grow).
import { forbidden, internalError, isApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';
import { group, longDomainKey } from '../naming/index.js';
import { nanoValue, parseQuantity } from '../schema/quantity.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './types.js';
import { admissionForbidden, getOrUndefined, isResource, mapsAt, specOf, stringAt, stringMapAt, type JsonMap } from './util.js';
import { setOwn } from '../apimachinery/own.js';
import { isPlainObject } from '../apimachinery/types.js';

const priorityClasses = () => ({ group: group('scheduling'), version: 'v1', resource: 'priorityclasses' });
const storageClasses = () => ({ group: group('storage'), version: 'v1', resource: 'storageclasses' });
const ingressClasses = () => ({ group: group('networking'), version: 'v1', resource: 'ingressclasses' });
const runtimeClasses = () => ({ group: group('node'), version: 'v1', resource: 'runtimeclasses' });

const createOnly = (operation: AdmissionOperation): boolean => operation === 'CREATE';

function annotations(obj: KubeObject): Record<string, string> {
  return stringMapAt(obj.metadata as JsonMap | undefined, 'annotations');
}

function ensureSpec(obj: KubeObject): JsonMap {
  if (!isPlainObject(obj.spec)) obj.spec = {};
  return obj.spec as JsonMap;
}

async function listItems(client: ApiClient, r: { group: string; version: string; resource: string }, namespace = ''): Promise<KubeObject[]> {
  try {
    return (await client.list(r, namespace)).items;
  } catch (err) {
    // A group switched off by --runtime-config has no classes.
    if (isApiError(err) && err.code === 404) return [];
    throw err;
  }
}

// --- Priority ---

export const SYSTEM_NODE_CRITICAL = 'system-node-critical';
export const SYSTEM_CLUSTER_CRITICAL = 'system-cluster-critical';
const PREEMPT_LOWER_PRIORITY = 'PreemptLowerPriority';

/** The class with `globalDefault` (the lowest value if a race left several); undefined when none. */
function defaultPriorityClass(classes: KubeObject[]): KubeObject | undefined {
  let chosen: KubeObject | undefined;
  for (const pc of classes) {
    if (pc.globalDefault !== true) continue;
    if (!chosen || Number(chosen.value) > Number(pc.value)) chosen = pc;
  }
  return chosen;
}

export class PriorityAdmission implements AdmissionPlugin {
  readonly name = 'Priority';
  constructor(private readonly client: ApiClient) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (!isResource(attrs, '', 'pods') || !attrs.object) return;
    const spec = ensureSpec(attrs.object);
    if (attrs.operation === 'UPDATE') {
      // Priority is set once, at creation; an update that omits it keeps it.
      const old = specOf(attrs.oldObject) ?? {};
      if (spec.priority === undefined && old.priority !== undefined) spec.priority = old.priority;
      if (spec.preemptionPolicy === undefined && old.preemptionPolicy !== undefined) spec.preemptionPolicy = old.preemptionPolicy;
      return;
    }
    let priority = 0;
    let preemptionPolicy: string | undefined;
    const className = stringAt(spec, 'priorityClassName');
    if (!className) {
      const pc = defaultPriorityClass(await listItems(this.client, priorityClasses()));
      if (pc) {
        spec.priorityClassName = pc.metadata?.name;
        priority = Number(pc.value ?? 0);
        preemptionPolicy = typeof pc.preemptionPolicy === 'string' ? pc.preemptionPolicy : undefined;
      }
    } else {
      let pc: KubeObject | undefined;
      try {
        pc = await getOrUndefined(this.client, priorityClasses(), '', className);
      } catch (err) {
        throw internalError(new Error(`failed to get PriorityClass with name ${className}: ${err instanceof Error ? err.message : String(err)}`));
      }
      if (!pc) throw admissionForbidden(attrs, `no PriorityClass with name ${className} was found`);
      priority = Number(pc.value ?? 0);
      preemptionPolicy = typeof pc.preemptionPolicy === 'string' ? pc.preemptionPolicy : undefined;
    }
    if (typeof spec.priority === 'number' && spec.priority !== priority) {
      throw admissionForbidden(
        attrs,
        `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`,
      );
    }
    spec.priority = priority;
    preemptionPolicy ??= PREEMPT_LOWER_PRIORITY;
    if (typeof spec.preemptionPolicy === 'string' && spec.preemptionPolicy !== preemptionPolicy) {
      throw admissionForbidden(
        attrs,
        `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${preemptionPolicy} from the given PriorityClass name`,
      );
    }
    spec.preemptionPolicy = preemptionPolicy;
  }

  /** Only one class may be the global default. */
  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!isResource(attrs, group('scheduling'), 'priorityclasses') || !attrs.object) return;
    if (attrs.object.globalDefault !== true) return;
    const name = attrs.object.metadata?.name;
    const other = (await listItems(this.client, priorityClasses())).find((pc) => pc.globalDefault === true && pc.metadata?.name !== name);
    if (other) throw admissionForbidden(attrs, `PriorityClass ${other.metadata?.name} is already marked as default. Only one default can exist`);
  }
}

// --- DefaultStorageClass ---

function defaultStorageClassAnnotations(): string[] {
  return [longDomainKey('is-default-class', 'storageclass'), longDomainKey('is-default-class', 'storageclass.beta')];
}

export function betaStorageClassAnnotation(): string {
  return longDomainKey('storage-class', 'volume.beta');
}

/** The storage classes annotated as the default. */
function defaultStorageClasses(classes: KubeObject[]): KubeObject[] {
  const keys = defaultStorageClassAnnotations();
  return classes.filter((c) => keys.some((k) => annotations(c)[k] === 'true'));
}

/**
 * DefaultStorageClass: a claim created without a class gets the default one. With two or
 * more default classes the creation fails (403, `Internal error occurred: <n> default
 * StorageClasses were found`), as the specification requires and Kubernetes did before 1.26;
 * 1.27 itself would pick the newest default instead.
 */
export class DefaultStorageClass implements AdmissionPlugin {
  readonly name = 'DefaultStorageClass';
  readonly handles = createOnly;
  constructor(private readonly client: ApiClient) {}

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (!isResource(attrs, '', 'persistentvolumeclaims') || !attrs.object) return;
    const spec = ensureSpec(attrs.object);
    // An explicit class, even "" (no class), is the user's choice.
    if (spec.storageClassName !== undefined && spec.storageClassName !== null) return;
    if (annotations(attrs.object)[betaStorageClassAnnotation()] !== undefined) return;
    const defaults = defaultStorageClasses(await listItems(this.client, storageClasses()));
    if (defaults.length > 1) throw admissionForbidden(attrs, `Internal error occurred: ${defaults.length} default StorageClasses were found`);
    const name = defaults[0]?.metadata?.name;
    if (name) spec.storageClassName = name;
  }
}

// --- DefaultIngressClass ---

function defaultIngressClassAnnotation(): string {
  return longDomainKey('is-default-class', 'ingressclass');
}

export class DefaultIngressClass implements AdmissionPlugin {
  readonly name = 'DefaultIngressClass';
  readonly handles = createOnly;
  constructor(private readonly client: ApiClient) {}

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (!isResource(attrs, group('networking'), 'ingresses') || !attrs.object) return;
    const spec = ensureSpec(attrs.object);
    if (typeof spec.ingressClassName === 'string') return;
    if (annotations(attrs.object)[longDomainKey('ingress.class')] !== undefined) return;
    const defaults = (await listItems(this.client, ingressClasses())).filter((c) => annotations(c)[defaultIngressClassAnnotation()] === 'true');
    if (defaults.length > 1) {
      throw forbidden({ group: group('networking'), resource: 'ingresses' }, '', `${defaults.length} default IngressClasses were found, only 1 allowed`);
    }
    const name = defaults[0]?.metadata?.name;
    if (name) spec.ingressClassName = name;
  }
}

// --- RuntimeClass ---

/** Resource lists are equal when they name the same resources with the same quantities. */
function sameResourceList(a: JsonMap, b: JsonMap): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  const value = (v: unknown): bigint | undefined => {
    try {
      return nanoValue(parseQuantity(String(v)));
    } catch {
      return undefined;
    }
  };
  return ka.every((k) => k in b && value(a[k]) !== undefined && value(a[k]) === value(b[k]));
}

function tolerationKey(t: JsonMap): string {
  return JSON.stringify([t.key ?? '', t.operator ?? '', t.value ?? '', t.effect ?? '', t.tolerationSeconds ?? null]);
}

export class RuntimeClassAdmission implements AdmissionPlugin {
  readonly name = 'RuntimeClass';
  readonly handles = createOnly;
  constructor(private readonly client: ApiClient) {}

  private async runtimeClass(attrs: AdmissionAttributes): Promise<KubeObject | undefined> {
    const name = stringAt(specOf(attrs.object), 'runtimeClassName');
    if (!name) return undefined;
    const rc = await getOrUndefined(this.client, runtimeClasses(), '', name);
    if (!rc) throw admissionForbidden(attrs, `pod rejected: RuntimeClass "${name}" not found`);
    return rc;
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (!isResource(attrs, '', 'pods') || !attrs.object) return;
    const rc = await this.runtimeClass(attrs);
    if (!rc) return;
    const spec = ensureSpec(attrs.object);
    const fixed = isPlainObject(rc.overhead) && isPlainObject(rc.overhead.podFixed) ? rc.overhead.podFixed : undefined;
    if (fixed) {
      if (isPlainObject(spec.overhead) && Object.keys(spec.overhead).length > 0 && !sameResourceList(fixed, spec.overhead)) {
        throw admissionForbidden(attrs, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
      }
      spec.overhead = { ...fixed };
    }
    const scheduling = isPlainObject(rc.scheduling) ? rc.scheduling : undefined;
    if (!scheduling) return;
    const selector = stringMapAt(scheduling, 'nodeSelector');
    if (Object.keys(selector).length > 0) {
      const podSelector = stringMapAt(spec, 'nodeSelector');
      for (const [k, v] of Object.entries(selector)) {
        if (Object.hasOwn(podSelector, k) && podSelector[k] !== v) {
          throw admissionForbidden(attrs, `conflict: runtimeClass.scheduling.nodeSelector[${k}] = ${v}; pod.spec.nodeSelector[${k}] = ${podSelector[k]}`);
        }
        setOwn(podSelector, k, v);
      }
      spec.nodeSelector = podSelector;
    }
    const extra = mapsAt(scheduling, 'tolerations');
    if (extra.length > 0) {
      const tolerations = mapsAt(spec, 'tolerations');
      const seen = new Set(tolerations.map(tolerationKey));
      spec.tolerations = [...tolerations, ...extra.filter((t) => !seen.has(tolerationKey(t))).map((t) => ({ ...t }))];
    }
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!isResource(attrs, '', 'pods') || !attrs.object) return;
    const rc = await this.runtimeClass(attrs);
    const spec = specOf(attrs.object) ?? {};
    const fixed = rc && isPlainObject(rc.overhead) && isPlainObject(rc.overhead.podFixed) ? rc.overhead.podFixed : undefined;
    const overhead = isPlainObject(spec.overhead) ? spec.overhead : undefined;
    if (fixed) {
      if (!overhead || !sameResourceList(fixed, overhead)) throw admissionForbidden(attrs, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
    } else if (overhead) {
      throw admissionForbidden(attrs, 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
    }
  }
}

// --- PersistentVolumeClaimResize ---

function claimClass(pvc: KubeObject | undefined): string {
  const beta = annotations(pvc ?? {})[betaStorageClassAnnotation()];
  if (beta !== undefined) return beta;
  return stringAt(specOf(pvc), 'storageClassName') ?? '';
}

function requestedStorage(pvc: KubeObject | undefined): bigint | undefined {
  const resources = specOf(pvc)?.resources;
  const requests = isPlainObject(resources) && isPlainObject(resources.requests) ? resources.requests : undefined;
  const v = requests?.storage;
  if (v === undefined) return undefined;
  try {
    return nanoValue(parseQuantity(String(v)));
  } catch {
    return undefined;
  }
}

export class PersistentVolumeClaimResize implements AdmissionPlugin {
  readonly name = 'PersistentVolumeClaimResize';
  constructor(private readonly client: ApiClient) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'UPDATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!isResource(attrs, '', 'persistentvolumeclaims') || !attrs.object || !attrs.oldObject) return;
    const before = requestedStorage(attrs.oldObject) ?? 0n;
    const after = requestedStorage(attrs.object) ?? 0n;
    if (after <= before) return;
    const phase = isPlainObject(attrs.oldObject.status) ? attrs.oldObject.status.phase : undefined;
    if (phase !== 'Bound') throw admissionForbidden(attrs, 'Only bound persistent volume claims can be expanded');
    if (!(await this.allowResize(attrs.object, attrs.oldObject))) {
      throw admissionForbidden(attrs, 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
    }
  }

  private async allowResize(pvc: KubeObject, old: KubeObject): Promise<boolean> {
    const name = claimClass(pvc);
    if (!name || name !== claimClass(old)) return false;
    const sc = await getOrUndefined(this.client, storageClasses(), '', name).catch(() => undefined);
    return sc?.allowVolumeExpansion === true;
  }
}
