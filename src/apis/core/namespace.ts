// Namespaces: DNS-label names, the metadata-name label, `Active` on create, and the
// namespace finalizer that only the `finalize` subresource may remove.
import { invalidField, type FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import type { PartUpdate } from '../../rest/index.js';
import { longDomainKey, namespaceFinalizer } from '../../naming/index.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, nameColumn, since } from '../table.js';
import { arr, at, child, clone, meta, str } from '../util.js';
import { isQualifiedName, oneOf } from '../validation.js';
import { dns1123LabelName } from '../../apimachinery/names.js';
import { setOwn } from '../../apimachinery/own.js';

/** The label every namespace carries with its own name (`kubernetes.io/metadata.name` in the stock flavor). */
export function namespaceNameLabel(): string {
  return longDomainKey('metadata.name');
}

function validateFinalizerName(value: unknown, path: string): FieldError[] {
  if (typeof value !== 'string') return [invalidField(path, value, 'must be a string')];
  const errs = isQualifiedName(value).map((m) => invalidField(path, value, m));
  if (errs.length === 0 && !value.includes('/') && value !== namespaceFinalizer()) {
    errs.push(invalidField(path, value, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  return errs;
}

/** `spec.finalizers` as stored: a list, or none. */
function specFinalizers(o: KubeObject): unknown[] {
  return arr(at(o, 'spec.finalizers'));
}

/** A namespace being deleted stays Terminating, whatever a write says. */
function keepTerminating(o: KubeObject, old: KubeObject): void {
  if (meta(old).deletionTimestamp) child(o, 'status').phase = 'Terminating';
}

/**
 * The `namespaces/<name>/finalize` update (the namespace controller's last step): only
 * `spec.finalizers` may change, everything else is kept from the stored object.
 */
export const namespaceFinalize: PartUpdate = {
  prepareForUpdate(o, old) {
    const finalizers = [...specFinalizers(o)];
    for (const key of Object.keys(o)) if (key !== 'apiVersion' && key !== 'kind') delete o[key];
    for (const [key, value] of Object.entries(old)) if (key !== 'apiVersion' && key !== 'kind') setOwn(o, key, clone(value));
    child(o, 'spec').finalizers = finalizers;
    keepTerminating(o, old);
  },
};

export const namespaces: KindSpec = {
  validateName: dns1123LabelName,
  namespaceLifecycle: true,
  defaults(o) {
    const status = child(o, 'status');
    if (!status.phase) status.phase = 'Active';
    const name = meta(o).name;
    if (name) {
      const m = (o.metadata ??= {});
      m.labels = { ...(m.labels ?? {}), [namespaceNameLabel()]: name };
    }
  },
  prepareForCreate(o) {
    o.status = { phase: 'Active' };
    const spec = child(o, 'spec');
    const finalizers = arr(spec.finalizers);
    if (!finalizers.includes(namespaceFinalizer())) spec.finalizers = [...finalizers, namespaceFinalizer()];
  },
  prepareForUpdate(o, old) {
    // Finalizers of the spec change only through the finalize subresource.
    child(o, 'spec').finalizers = [...specFinalizers(old)];
    keepTerminating(o, old);
  },
  prepareForStatusUpdate(o, old) {
    child(o, 'spec').finalizers = [...specFinalizers(old)];
    keepTerminating(o, old);
  },
  subresources: { finalize: { serving: { by: 'part', part: namespaceFinalize } } },
  validate(o) {
    const errs: FieldError[] = [];
    arr(at(o, 'spec.finalizers')).forEach((f, i) => errs.push(...validateFinalizerName(f, `spec.finalizers[${i}]`)));
    errs.push(...oneOf(at(o, 'status.phase'), ['Active', 'Terminating'], 'status.phase'));
    return errs;
  },
  fields: {
    'status.phase': (o) => str(at(o, 'status.phase')) ?? '',
    // Kept for old clients, as Kubernetes keeps it.
    name: (o) => meta(o).name ?? '',
  },
  table: {
    columns: [nameColumn, column('Status', 'string', 'The status of the namespace'), ageColumn],
    cells: (o, now) => [meta(o).name ?? '', str(at(o, 'status.phase')) ?? '', since(meta(o).creationTimestamp, now)],
  },
};
