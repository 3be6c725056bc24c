// The object history: every successful write's object, user and field manager, kept per
// object under a retention, served read-only as `revisions` of history.<product domain>/v1.
export { parseRetention, formatRetention, revisionsToDrop, DEFAULT_RETENTION, type Retention } from './retention.js';
export { jsonPatch, type PatchOperation } from './diff.js';
export { operationName, type RevisionOperation } from './operation.js';
export { HistoryStore, DEFAULT_MAX_HISTORY_BYTES, type HistoryListener, type HistoryStoreOptions, type ObjectHistory, type RevisionTarget, type StoredRevision } from './store.js';
export { RevisionsStore, revisionsDefinition, HISTORY_VERSION, type TargetAuthorizer, type TargetRef } from './serve.js';
export { parseRevisionSelector } from './selector.js';
export { revisionName, parseRevisionName, revisionTable } from './revision.js';
export { revisionSchema } from './schema.js';
export { HistoryPersistence, HISTORY_PREFIX, type HistoryPersistenceOptions } from './persist.js';
