// The schema layer: the catalog of built-in types and the features that read it.

export type * from './catalog-types.js';
export { getCatalog, typeIdForKind, lookupType, jsonFields } from './catalog.js';
