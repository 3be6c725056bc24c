// The patch formats the handlers apply, from the patch module: JSON patch and merge patch
// for every kind, strategic merge patch for the built-in kinds of the schema catalog.
import { applyJsonPatch, applyMergePatch, jsonPatchStrictErrors, applyStrategicMergePatch, catalogPatchSchema, catalogSupportsStrategicMergePatch, strategicMergePatchNotSupported } from '../patch/index.js';
import { typeIdForKind } from '../schema/index.js';
import type { Patchers } from './resource-handler.js';

export const defaultPatchers: Patchers = {
  json: applyJsonPatch,
  jsonStrictErrors: jsonPatchStrictErrors,
  merge: applyMergePatch,
  strategic(doc, patch, kind) {
    const typeId = typeIdForKind(kind);
    if (!typeId || !catalogSupportsStrategicMergePatch(typeId)) throw strategicMergePatchNotSupported();
    return applyStrategicMergePatch(doc, patch, catalogPatchSchema(typeId));
  },
};
