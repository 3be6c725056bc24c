// The REST contract between the layers: what a kind's Strategy tells the generic Store, what a
// served resource is, the verbs handlers and clients call on a Store and on a subresource's
// store, the table that resolves them, and the request context.
export type * from './context.js';
export type * from './history.js';
export type * from './definition.js';
export type * from './list.js';
export type * from './options.js';
export type * from './store.js';
export type * from './strategy.js';
export type * from './subresource.js';
export type * from './table.js';
export type * from './table-convertor.js';
export type * from './simulated-nodes.js';
export type * from './watch.js';
