// One PATCH request's choice among the three patch formats. Server-side apply
// (`application/apply-patch+yaml`) belongs to the apply module and is routed there first.

import { applyJsonPatch } from './json-patch.js';
import { applyMergePatch } from './merge-patch.js';
import {
  BUILTIN_PATCH_TYPES,
  CUSTOM_RESOURCE_PATCH_TYPES,
  JSON_PATCH_TYPE,
  MERGE_PATCH_TYPE,
  STRATEGIC_MERGE_PATCH_TYPE,
  patchTypeOf,
  unsupportedPatchType,
} from './media-types.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';
import type { PatchSchema } from './strategic-schema.js';
import { unprocessablePatch } from './errors.js';

/**
 * Applies a decoded patch body of the given Content-Type. `schema` is the kind's PatchSchema,
 * or undefined for kinds without strategic information (custom resources), which then
 * answer 415 to a strategic merge patch.
 */
export function applyPatchOfType(contentType: string, doc: unknown, patch: unknown, schema: PatchSchema | undefined): unknown {
  try {
    return applyOfType(contentType, doc, patch, schema);
  } catch (e) {
    // Patches can nest a document deeper than any decoder would accept (a JSON patch adds a
    // level per operation); running out of stack on one is the request's fault, not a crash.
    if (e instanceof RangeError) throw unprocessablePatch(`patch nests too deeply: ${e.message}`);
    throw e;
  }
}

function applyOfType(contentType: string, doc: unknown, patch: unknown, schema: PatchSchema | undefined): unknown {
  switch (patchTypeOf(contentType)) {
    case JSON_PATCH_TYPE:
      return applyJsonPatch(doc, patch);
    case MERGE_PATCH_TYPE:
      return applyMergePatch(doc, patch);
    case STRATEGIC_MERGE_PATCH_TYPE:
      if (schema) return applyStrategicMergePatch(doc, patch, schema);
      throw unsupportedPatchType(CUSTOM_RESOURCE_PATCH_TYPES);
    default:
      throw unsupportedPatchType(schema ? BUILTIN_PATCH_TYPES : CUSTOM_RESOURCE_PATCH_TYPES);
  }
}
