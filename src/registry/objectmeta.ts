// Generic ObjectMeta rules every stored kind follows: name rules, generated names, and the
// validation of labels, annotations, finalizers and owner references on create and update.
import { randomInt } from 'node:crypto';
import type { FieldError } from '../apimachinery/errors.js';
import { forbiddenField, invalidField, requiredField } from '../apimachinery/errors.js';
import type { ObjectMeta } from '../apimachinery/types.js';
import { isDNS1123Label, isQualifiedName, isValidLabelValue } from '../apimachinery/labels.js';
import { pathSegmentName, type NameValidator } from '../apimachinery/names.js';

const GENERATED_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const MAX_GENERATED_BASE = 63 - 5;

/** `generateName` plus five random characters, the base cut so the name stays within 63. */
export function generateName(base: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += GENERATED_ALPHABET[randomInt(GENERATED_ALPHABET.length)];
  return `${base.length > MAX_GENERATED_BASE ? base.slice(0, MAX_GENERATED_BASE) : base}${suffix}`;
}

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

function validateLabels(labels: Record<string, string> | undefined): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    for (const msg of isQualifiedName(k)) errs.push(invalidField('metadata.labels', k, msg));
    if (typeof v !== 'string') {
      errs.push(invalidField('metadata.labels', v, 'must be a string'));
      continue;
    }
    for (const msg of isValidLabelValue(v)) errs.push(invalidField('metadata.labels', v, msg));
  }
  return errs;
}

function validateAnnotations(annotations: Record<string, string> | undefined): FieldError[] {
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalidField('metadata.annotations', k, msg));
    size += k.length + (typeof v === 'string' ? v.length : 0);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) {
    errs.push({ type: 'FieldValueTooLong', field: 'metadata.annotations', detail: `Too long: must have at most ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes` });
  }
  return errs;
}

/** Malformed bodies may carry anything where a list or map belongs. */
function shapeErrors(meta: ObjectMeta): FieldError[] {
  const errs: FieldError[] = [];
  for (const field of ['finalizers', 'ownerReferences', 'managedFields'] as const) {
    const v: unknown = meta[field];
    if (v !== undefined && v !== null && !Array.isArray(v)) errs.push(invalidField(`metadata.${field}`, v, 'must be a list'));
  }
  for (const field of ['labels', 'annotations'] as const) {
    const v: unknown = meta[field];
    if (v !== undefined && v !== null && (typeof v !== 'object' || Array.isArray(v))) errs.push(invalidField(`metadata.${field}`, v, 'must be a map'));
  }
  return errs;
}

function validateFinalizers(finalizers: string[] | undefined): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of finalizers ?? []) {
    for (const msg of isQualifiedName(String(f))) errs.push(invalidField('metadata.finalizers', f, msg));
  }
  const set = new Set(finalizers ?? []);
  if (set.has('orphan') && set.has('foregroundDeletion')) {
    errs.push(invalidField('metadata.finalizers', finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

function validateOwnerReferences(meta: ObjectMeta): FieldError[] {
  const errs: FieldError[] = [];
  let controller = '';
  for (const ref of meta.ownerReferences ?? []) {
    const version = typeof ref.apiVersion === 'string' ? ref.apiVersion.split('/').pop() : '';
    if (!version) errs.push(invalidField('metadata.ownerReferences.apiVersion', ref.apiVersion ?? '', 'version must not be empty'));
    if (!ref.kind) errs.push(invalidField('metadata.ownerReferences.kind', ref.kind ?? '', 'kind must not be empty'));
    if (!ref.name) errs.push(invalidField('metadata.ownerReferences.name', ref.name ?? '', 'name must not be empty'));
    if (!ref.uid) errs.push(invalidField('metadata.ownerReferences.uid', ref.uid ?? '', 'uid must not be empty'));
    if (ref.controller === true) {
      const current = `${ref.kind}/${ref.name}`;
      if (controller) {
        errs.push(
          invalidField(
            'metadata.ownerReferences',
            meta.ownerReferences,
            `Only one reference can have Controller set to true. Found "true" in references for ${controller} and ${current}`,
          ),
        );
      } else controller = current;
    }
  }
  return errs;
}

function validateCommon(meta: ObjectMeta): FieldError[] {
  const shape = shapeErrors(meta);
  if (shape.length > 0) return shape;
  const errs: FieldError[] = [];
  if (typeof meta.generation === 'number' && meta.generation < 0) {
    errs.push(invalidField('metadata.generation', meta.generation, 'must be greater than or equal to 0'));
  }
  // Appended one by one: spreading a list of 100,000 findings into push() overflows the stack.
  for (const list of [validateLabels(meta.labels), validateAnnotations(meta.annotations), validateOwnerReferences(meta)]) appendAll(errs, list);
  return errs;
}

/** ObjectMeta validation on create (Kubernetes' ValidateObjectMeta). */
export function validateObjectMeta(meta: ObjectMeta, namespaced: boolean, nameFn: NameValidator): FieldError[] {
  const errs: FieldError[] = [];
  if (meta.generateName) {
    for (const msg of [...pathSegmentName(meta.generateName, true), ...nameFn(meta.generateName, true)]) {
      errs.push(invalidField('metadata.generateName', meta.generateName, msg));
    }
  }
  if (!meta.name) {
    errs.push(requiredField('metadata.name', 'name or generateName is required'));
  } else {
    const pathErrs = pathSegmentName(meta.name, false);
    for (const msg of pathErrs.length > 0 ? pathErrs : nameFn(meta.name, false)) errs.push(invalidField('metadata.name', meta.name, msg));
  }
  if (namespaced) {
    if (!meta.namespace) errs.push(requiredField('metadata.namespace'));
    else for (const msg of isDNS1123Label(meta.namespace)) errs.push(invalidField('metadata.namespace', meta.namespace, msg));
  } else if (meta.namespace) {
    errs.push(forbiddenField('metadata.namespace', 'not allowed on this type'));
  }
  appendAll(errs, validateCommon(meta));
  if (Array.isArray(meta.finalizers)) appendAll(errs, validateFinalizers(meta.finalizers));
  return errs;
}

/** ObjectMeta validation on update (Kubernetes' ValidateObjectMetaUpdate, minus the fields the Store keeps). */
export function validateObjectMetaUpdate(meta: ObjectMeta, old: ObjectMeta): FieldError[] {
  const errs: FieldError[] = [];
  const shape = shapeErrors(meta);
  if (shape.length > 0) return shape;
  if (old.deletionTimestamp) {
    const oldSet = new Set(old.finalizers ?? []);
    const added = [...new Set(meta.finalizers ?? [])].filter((f) => !oldSet.has(f)).sort();
    if (added.length > 0) {
      const rendered = `[]string{${added.map((f) => JSON.stringify(f)).join(', ')}}`;
      errs.push(forbiddenField('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers ${rendered}`));
    }
  }
  if ((meta.generation ?? 0) < (old.generation ?? 0)) {
    errs.push(invalidField('metadata.generation', meta.generation ?? 0, 'must not be decremented'));
  }
  appendAll(errs, validateCommon(meta));
  appendAll(errs, validateFinalizers(meta.finalizers));
  return errs;
}

function appendAll<T>(to: T[], items: readonly T[]): void {
  for (const item of items) to.push(item);
}
