// The small defaulting plugins: DefaultTolerationSeconds (pods tolerate a node that is not
// ready or unreachable for five minutes before eviction), TaintNodesByCondition (a new node
// is not schedulable until its agent reports it ready) and StorageObjectInUseProtection
// (claims and volumes keep a finalizer while in use).
import { longDomainKey } from '../naming/index.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './types.js';
import { isResource, mapsAt, type JsonMap } from './util.js';
import { isPlainObject } from '../apimachinery/types.js';

const DEFAULT_TOLERATION_SECONDS = 300;

const createOnly = (operation: AdmissionOperation): boolean => operation === 'CREATE';

function notReadyTaintKey(): string {
  return longDomainKey('not-ready', 'node');
}

function unreachableTaintKey(): string {
  return longDomainKey('unreachable', 'node');
}

/** Adds the NoExecute tolerations the pod lacks (a toleration with no key or no effect covers them). */
function addDefaultTolerations(spec: JsonMap, seconds = DEFAULT_TOLERATION_SECONDS): void {
  const tolerations = mapsAt(spec, 'tolerations');
  const covers = (key: string): boolean =>
    tolerations.some((t) => (t.key === key || !t.key) && (t.effect === 'NoExecute' || !t.effect));
  const added: JsonMap[] = [];
  for (const key of [notReadyTaintKey(), unreachableTaintKey()]) {
    if (!covers(key)) added.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds });
  }
  if (added.length > 0) spec.tolerations = [...tolerations, ...added];
}

export const defaultTolerationSeconds: AdmissionPlugin = {
  name: 'DefaultTolerationSeconds',
  handles: createOnly,
  async admit(attrs: AdmissionAttributes) {
    if (!isResource(attrs, '', 'pods') || !attrs.object) return;
    if (!isPlainObject(attrs.object.spec)) attrs.object.spec = {};
    addDefaultTolerations(attrs.object.spec as JsonMap);
  },
};

export const taintNodesByCondition: AdmissionPlugin = {
  name: 'TaintNodesByCondition',
  handles: createOnly,
  async admit(attrs: AdmissionAttributes) {
    if (!isResource(attrs, '', 'nodes') || !attrs.object) return;
    if (!isPlainObject(attrs.object.spec)) attrs.object.spec = {};
    const spec = attrs.object.spec as JsonMap;
    const taints = mapsAt(spec, 'taints');
    const key = notReadyTaintKey();
    if (taints.some((t) => t.key === key && t.effect === 'NoSchedule')) return;
    spec.taints = [...taints, { key, effect: 'NoSchedule' }];
  },
};

function pvcProtectionFinalizer(): string {
  return longDomainKey('pvc-protection');
}

function pvProtectionFinalizer(): string {
  return longDomainKey('pv-protection');
}

export const storageObjectInUseProtection: AdmissionPlugin = {
  name: 'StorageObjectInUseProtection',
  handles: createOnly,
  async admit(attrs: AdmissionAttributes) {
    if (!attrs.object) return;
    let finalizer: string;
    if (isResource(attrs, '', 'persistentvolumeclaims')) finalizer = pvcProtectionFinalizer();
    else if (isResource(attrs, '', 'persistentvolumes')) finalizer = pvProtectionFinalizer();
    else return;
    const meta = (attrs.object.metadata ??= {});
    const finalizers = meta.finalizers ?? [];
    if (!finalizers.includes(finalizer)) meta.finalizers = [...finalizers, finalizer];
  },
};
