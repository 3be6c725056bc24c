// Patches: RFC 6902 JSON patch, RFC 7386 merge patch and Kubernetes strategic merge patch,
// as pure functions over JSON values that throw ApiError with Kubernetes' statuses.

export { applyJsonPatch, jsonPatchStrictErrors, MAX_JSON_PATCH_OPERATIONS, MAX_JSON_PATCH_COPY_BYTES } from './json-patch.js';
export type { JsonPatchOperation, JsonPatchOptions } from './json-patch.js';
export { applyMergePatch } from './merge-patch.js';
export { applyStrategicMergePatch } from './strategic-merge-patch.js';
export {
  patchSchemaFor,
  supportsStrategicMergePatch,
  strategicMergePatchNotSupported,
} from './strategic-schema.js';
export type { PatchSchema, TypeLookup } from './strategic-schema.js';
export { applyPatchOfType } from './patch-types.js';
export {
  patchTypeOf,
  unsupportedPatchType,
  JSON_PATCH_TYPE,
  MERGE_PATCH_TYPE,
  STRATEGIC_MERGE_PATCH_TYPE,
  APPLY_PATCH_TYPE,
  BUILTIN_PATCH_TYPES,
  CUSTOM_RESOURCE_PATCH_TYPES,
} from './media-types.js';
export { catalogPatchSchema, catalogSupportsStrategicMergePatch } from './catalog-schema.js';
