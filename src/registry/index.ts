// The registry layer: the generic Store over Storage and the watch cache, the namespaces
// store, and the resource table.
export * from '../rest/index.js';
export { GenericStore, DEFAULT_MAX_OBJECT_SIZE_BYTES, type GenericStoreOptions, type StoreWrite, type WriteEndpoint } from './store.js';
export { CacheDelegator, type CacheDelegatorOptions, type ObjectFilter, type ReadView } from './cache-delegator.js';
export { NamespaceStore } from './namespaces.js';
export { DefaultResourceTable, buildResourceTable, servedDefinitions, type BuildResourceTableOptions } from './table.js';
export { serveResourceHandler, serveSubresourceHandler, storesOfSubresources } from './subresources.js';
export { ScaleREST } from './scale.js';
export { jsonCodec, type ObjectCodec } from '../codec/storage.js';
export { resourcePrefix, objectKey, collectionPrefix } from './keys.js';
export { encodeContinue, decodeContinue, type ContinueToken } from './continue.js';
export { generateName, validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
export {
  type NameValidator,
  dns1123SubdomainName,
  dns1123LabelName,
  dns1035LabelName,
  pathSegmentName,
} from '../apimachinery/names.js';
export { validateListOptions, validateWatchOptions, validateDeleteOptions } from './options.js';
export { rfc3339 } from '../apimachinery/time.js';
