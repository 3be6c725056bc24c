// Field validation of request bodies against the schema catalog (`fieldValidation` =
// Ignore, Warn, Strict): unknown and duplicate fields become warnings or a 400, and values
// of the wrong type are a 400 at every level. Kinds outside the catalog pass unchecked.
import type { GroupVersionKind, KubeObject } from '../../apimachinery/types.js';
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
export function checkFields(body: Uint8Array, obj: KubeObject, kind: GroupVersionKind, level: FieldValidation, contentType: string, patched = false): string[] {
  const type = parseMediaType(contentType)?.type ?? 'application/json';
  // Duplicate keys are only visible in JSON text; YAML's parser has already resolved them.
  const jsonText = type === 'application/json' || type.endsWith('+json');
  const duplicates = jsonText && level !== 'Ignore' ? findDuplicateKeys(decoder.decode(body)) : [];
  const result = checkObject(obj, kind, {
    fieldValidation: level,
    duplicateFields: duplicates,
    // Required fields and enum values are the strategies' validation (422), not decoding.
    checkRequired: false,
    ...(patched ? { patchText: stringifyJson(obj) } : {}),
  });
  return result.warnings;
}

/** Adds warnings the request does not carry yet. */
export function addWarnings(to: string[], warnings: readonly string[]): void {
  for (const w of warnings) if (!to.includes(w)) to.push(w);
}
