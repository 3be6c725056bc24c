// The schema layer: the catalog of built-in types and the features that read it.

export type * from './catalog-types.js';
export { getCatalog, typeIdForKind, lookupType, jsonFields, servedFieldName } from './catalog.js';
export { checkObject, type CheckOptions, type CheckResult, type FieldValidation } from './validate.js';
export { parseQuantity, formatQuantity, canonicalQuantity, type Quantity } from './quantity.js';
export { fillGoEncodedZeroValues, type FillOptions } from './go-encoding.js';
export { normalizeTime, normalizeMicroTime, normalizeDuration, parseGoDuration, formatGoDuration } from './go-values.js';
export {
  openapiV2,
  openapiV3Index,
  openapiV3Document,
  openapiHandler,
  OPENAPI_V2_PROTOBUF,
  OPENAPI_V2_PROTOBUF_RESPONSE,
  type OpenApiResource,
  type OpenApiV2,
  type OpenApiV3Document,
  type OpenApiAnswer,
} from './openapi/index.js';
