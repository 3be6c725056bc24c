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
    recordStoredVersion(o);
    // The finalizer stays while the definition lives, so a deletion always cleans up.
    const m = (o.metadata ??= {});
    const finalizers = arr(m.finalizers).map(String);
    if (!old.metadata?.deletionTimestamp && !finalizers.includes(customResourceCleanupFinalizer())) {
      m.finalizers = [...finalizers, customResourceCleanupFinalizer()];
    }
  },
  // A definition is validated as a create, an update or a status update, each with its rules.
  validate: (o): FieldError[] => validateCustomResourceDefinition(o),
  validateWholeUpdate: (o, old): FieldError[] => validateCustomResourceDefinitionUpdate(o, old),
  validateStatusUpdate: (o): FieldError[] => validateCustomResourceDefinitionStatusUpdate(o),
};

export const apiextensionsKinds: Record<string, KindSpec> = {
  CustomResourceDefinition: customResourceDefinitions,
};
