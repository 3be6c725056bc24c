// The schema layer: the catalog of built-in types and the features that read it.

export type * from './catalog-types.js';
export { getCatalog, typeIdForKind, lookupType, jsonFields } from './catalog.js';
export { checkObject, type CheckOptions, type CheckResult, type FieldValidation } from './validate.js';
export { parseQuantity, formatQuantity, canonicalQuantity, type Quantity } from './quantity.js';
export { normalizeTime, normalizeMicroTime, normalizeDuration, parseGoDuration, formatGoDuration } from './go-values.js';
export { parseJsonWithDuplicates } from '../codec/strict-json.js';
