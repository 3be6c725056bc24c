// Strategic merge patch over the built-in schema catalog.

import { lookupType } from '../schema/index.js';
import { patchSchemaFor, supportsStrategicMergePatch, type PatchSchema } from './strategic-schema.js';

const catalogLookup = { lookupType };

/** The PatchSchema of a built-in type, e.g. `catalogPatchSchema('io.k8s.api.apps.v1.Deployment')`. */
export function catalogPatchSchema(typeId: string): PatchSchema {
  return patchSchemaFor(catalogLookup, typeId);
}

/** Whether a catalog type id (from `typeIdForKind`) takes strategic merge patches; false for custom resources. */
export function catalogSupportsStrategicMergePatch(typeId: string | undefined): boolean {
  return supportsStrategicMergePatch(catalogLookup, typeId);
}
