// CustomResourceDefinitions: v1 defaults, the status kept apart from the spec, stored
// versions, the cleanup finalizer, and apiextensions validation (validation.ts).
import type { FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import type { KindSpec } from '../strategy.js';
import { arr, at, child, obj, objs, setDefault } from '../util.js';
import { customResourceCleanupFinalizer, storageVersionOf } from './crd.js';
import {
  validateCustomResourceDefinition,
  validateCustomResourceDefinitionStatusUpdate,
  validateCustomResourceDefinitionUpdate,
} from './validation.js';

export * from './crd.js';
export { validateCustomResourceDefinition, validateCustomResourceDefinitionUpdate } from './validation.js';

/** Adds the storage version to `status.storedVersions` once objects may be written in it. */
function recordStoredVersion(o: KubeObject): void {
  const v = storageVersionOf(o);
  if (!v) return;
  const status = child(o, 'status');
  const stored = arr(status.storedVersions).map(String);
  if (!stored.includes(v)) status.storedVersions = [...stored, v];
}

/**
 * The generic strategy validates the whole object on every write; a definition is
 * validated as create, update or status update, so each update's kind is noted when it is
 * prepared and read when it is validated.
 */
const updateKind = new WeakMap<KubeObject, 'main' | 'status'>();

const customResourceDefinitions: KindSpec = {
  tracksGeneration: true,
  allowUnconditionalUpdate: false,
  // A status write may change metadata (Kubernetes resets nothing there), which is how the
  // finalizer controller removes the cleanup finalizer.
  statusProtectedMeta: [],
  defaults(o) {
    const spec = child(o, 'spec');
    const names = child(spec, 'names');
    if (typeof names.kind === 'string' && names.kind !== '') {
      setDefault(names, 'singular', names.kind.toLowerCase());
      setDefault(names, 'listKind', `${names.kind}List`);
    }
    setDefault(child(spec, 'conversion'), 'strategy', 'None');
    const service = obj(at(spec, 'conversion.webhook.clientConfig.service'));
    if (service) setDefault(service, 'port', 443);
    // An empty list of stored versions starts with the storage version.
    const status = obj(o.status);
    if (status && arr(status.storedVersions).length === 0) {
      const first = objs(spec.versions).find((v) => v.storage === true);
      if (typeof first?.name === 'string') status.storedVersions = [first.name];
    }
  },
  prepareForCreate(o) {
    o.status = { acceptedNames: { plural: '', kind: '' } };
    recordStoredVersion(o);
    const m = (o.metadata ??= {});
    const finalizers = arr(m.finalizers).map(String);
    if (!finalizers.includes(customResourceCleanupFinalizer())) m.finalizers = [...finalizers, customResourceCleanupFinalizer()];
  },
  prepareForUpdate(o, old) {
    updateKind.set(o, 'main');
    recordStoredVersion(o);
    // The finalizer stays while the definition lives, so a deletion always cleans up.
    const m = (o.metadata ??= {});
    const finalizers = arr(m.finalizers).map(String);
    if (!old.metadata?.deletionTimestamp && !finalizers.includes(customResourceCleanupFinalizer())) {
      m.finalizers = [...finalizers, customResourceCleanupFinalizer()];
    }
  },
  prepareForStatusUpdate(o) {
    updateKind.set(o, 'status');
  },
  validate(o): FieldError[] {
    // Updates are validated whole by validateUpdate.
    if (updateKind.has(o)) return [];
    return validateCustomResourceDefinition(o);
  },
  validateUpdate(o, old): FieldError[] {
    if (updateKind.get(o) === 'status') return validateCustomResourceDefinitionStatusUpdate(o);
    return validateCustomResourceDefinitionUpdate(o, old);
  },
};

export const apiextensionsKinds: Record<string, KindSpec> = {
  CustomResourceDefinition: customResourceDefinitions,
};
