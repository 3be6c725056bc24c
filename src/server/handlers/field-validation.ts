// Field validation of request bodies (`fieldValidation` = Ignore, Warn, Strict): unknown and
// duplicate fields become warnings or a 400. Built-in kinds are checked against the schema
// catalog (values of the wrong type are a 400 at every level); custom resources against
// their schema, where unknown fields are those pruning would drop. Other kinds pass unchecked.
import { badRequest, invalid, invalidField, type ApiError } from '../../apimachinery/errors.js';
import { isPlainObject, type GroupVersionKind, type KubeObject } from '../../apimachinery/types.js';
import type { CustomResourceInfo } from '../../rest/index.js';
import { pruneObject } from '../../schema/crd/index.js';
import { stringifyJson } from '../../codec/json.js';
import { findDuplicateKeys } from '../../codec/strict-json.js';
import { parseMediaType } from '../../codec/media-type.js';
import { checkObject } from '../../schema/index.js';
import type { FieldValidation } from './options.js';

const decoder = new TextDecoder();

/**
 * Checks a decoded body at the requested level: returns the warnings for `Warn`, throws
 * ApiError 400 for `Strict`. `patched` says `obj` is the result of applying the patch in `body`.
 */
export function checkFields(
  body: Uint8Array,
  obj: KubeObject,
  kind: GroupVersionKind,
  level: FieldValidation,
  contentType: string,
  patched = false,
  customResource?: CustomResourceInfo,
): string[] {
  if (customResource) return checkCustomResourceFields(body, obj, kind, level, contentType, patched, customResource.schema);
  const duplicates = level !== 'Ignore' ? duplicateFields(body, contentType) : [];
  const result = checkObject(obj, kind, {
    fieldValidation: level,
    duplicateFields: duplicates,
    // Required fields and enum values are the strategies' validation (422), not decoding.
    checkRequired: false,
    ...(patched ? { patchText: stringifyJson(obj) } : {}),
  });
  return result.warnings;
}

/** Duplicate keys are only visible in JSON text; YAML's parser has already resolved them. */
function duplicateFields(body: Uint8Array, contentType: string): string[] {
  const type = parseMediaType(contentType)?.type ?? 'application/json';
  const jsonText = type === 'application/json' || type.endsWith('+json');
  return jsonText ? findDuplicateKeys(decoder.decode(body)) : [];
}

/** Removes, in place, what a schema does not declare; returns the removed fields' paths. */
export type Pruner = (obj: KubeObject, schema: NonNullable<CustomResourceInfo['schema']>) => string[];

/**
 * Field validation of a custom resource, as kube-apiserver's strict decoder of custom
 * resources reports it: the body's duplicate fields, then the fields pruning removes from a
 * copy (`unknown field "spec.foo"`). Without a schema every field is kept. Strict: the 400
 * of a body that does not decode, or for a patch the 422 naming the patched object.
 */
export function checkCustomResourceFields(
  body: Uint8Array,
  obj: KubeObject,
  kind: GroupVersionKind,
  level: FieldValidation,
  contentType: string,
  patched: boolean,
  schema: CustomResourceInfo['schema'],
  prune: Pruner = pruneObject,
): string[] {
  if (level === 'Ignore') return [];
  const findings = duplicateFields(body, contentType).map((d) => `duplicate field ${JSON.stringify(d)}`);
  findings.push(...unknownMetadataFields(obj));
  if (schema) {
    for (const path of prune(structuredClone(obj), schema)) findings.push(`unknown field ${JSON.stringify(path.startsWith('.') ? path.slice(1) : path)}`);
  }
  if (findings.length === 0) return [];
  if (level === 'Strict') throw strictDecodingError(kind, `strict decoding error: ${findings.join(', ')}`, patched ? obj : undefined);
  return findings;
}

/** A built-in kind whose metadata is ObjectMeta: the catalog checks a custom resource's metadata as it checks this kind's. */
const METADATA_CARRIER: GroupVersionKind = { group: '', version: 'v1', kind: 'ConfigMap' };

/**
 * Fields of `metadata` that ObjectMeta does not have (`metadata.foo`), which Kubernetes drops
 * from custom resources and reports before the schema's unknown fields. Values of the wrong
 * type are not this check's to report.
 */
function unknownMetadataFields(obj: KubeObject): string[] {
  if (!isPlainObject(obj.metadata)) return [];
  try {
    // The check drops what it reports: it reads a copy.
    const { warnings } = checkObject({ metadata: structuredClone(obj.metadata) }, METADATA_CARRIER, { fieldValidation: 'Warn', checkRequired: false });
    return warnings.filter((w) => w.startsWith('unknown field "metadata.'));
  } catch {
    return [];
  }
}

function strictDecodingError(kind: GroupVersionKind, message: string, patchedObject: KubeObject | undefined): ApiError {
  if (patchedObject !== undefined) return invalid({ group: '', kind: '' }, '', [invalidField('patch', stringifyJson(patchedObject), message)]);
  return badRequest(`${kind.kind} in version ${JSON.stringify(kind.version)} cannot be handled as a ${kind.kind}: ${message}`);
}

/**
 * The custom resource a body of kind `body` for `def` is checked against: the definition's
 * own kind (the object, its status); not the built-in Scale of its scale subresource.
 */
export function customResourceOf(def: { group: string; version: string; kind: string; customResource?: CustomResourceInfo }, body: GroupVersionKind): CustomResourceInfo | undefined {
  return body.group === def.group && body.version === def.version && body.kind === def.kind ? def.customResource : undefined;
}

/** Adds warnings the request does not carry yet. */
export function addWarnings(to: string[], warnings: readonly string[]): void {
  for (const w of warnings) if (!to.includes(w)) to.push(w);
}
