// A served subresource (Kubernetes gives each its own storage behind one installer:
// StatusREST, ScaleREST, BindingREST, EvictionREST, LogREST, ...). The resource table resolves
// `(group-version, resource, subresource)` to one; routing, discovery, OpenAPI, admission and
// the handlers read its definition from there, and call its verbs.
import type { KubeObject } from '../apimachinery/types.js';
import type { RequestContext } from './context.js';
import type { ResourceDefinition, SubresourceDefinition } from './definition.js';
import type { CreateOptions, GetOptions, UpdateOptions } from './options.js';
import type { ConnectRequest, RESTStore, UpdatedObjectInfo, UpdateResult } from './store.js';

/**
 * The verbs one subresource serves, each on the object `name` of the resource it belongs to.
 * A verb is present when the subresource serves it; patch and apply are `update`.
 */
export interface SubresourceStore {
  /** The resource it belongs to. */
  readonly resource: ResourceDefinition;
  readonly definition: SubresourceDefinition;
  get?(ctx: RequestContext, namespace: string, name: string, opts: GetOptions): Promise<KubeObject>;
  /** A create on the object (`pods/x/eviction`, `serviceaccounts/x/token`): `obj` is the subresource's kind. */
  create?(ctx: RequestContext, namespace: string, name: string, obj: KubeObject, opts: CreateOptions): Promise<KubeObject>;
  update?(ctx: RequestContext, namespace: string, name: string, objInfo: UpdatedObjectInfo, opts: UpdateOptions): Promise<UpdateResult>;
  /**
   * Serves a connect subresource (`definition.connect`) by answering on `request.response`
   * (or the upgraded socket) itself. Throws ApiError before writing anything; resolves when
   * the exchange is over.
   */
  connect?(ctx: RequestContext, namespace: string, name: string, request: ConnectRequest): Promise<void>;
}

/** Builds the store of a subresource declared as served by a handler, for the resource's store. */
export type SubresourceHandlerFactory = (resource: RESTStore, subresource: SubresourceDefinition) => SubresourceStore;
