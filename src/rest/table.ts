// The table of served resources and their subresources (Kubernetes' APIInstaller map of
// `resource` and `resource/subresource` paths to storage), changing at run time (CRDs,
// runtime config, aggregated APIs).
import type { GroupVersion } from '../apimachinery/types.js';
import type { RESTStore } from './store.js';
import type { SubresourceStore } from './subresource.js';

export interface ResourceTable {
  lookup(gv: GroupVersion, resource: string): RESTStore | undefined;
  /** The store of `resource/subresource`; undefined when the resource is not served or does not serve it. */
  lookupSubresource(gv: GroupVersion, resource: string, subresource: string): SubresourceStore | undefined;
  /** The subresources `resource` serves, in the order its definition declares them. */
  subresources(gv: GroupVersion, resource: string): SubresourceStore[];
  /** Every served resource, in a stable order. */
  all(): RESTStore[];
  /**
   * Serves `store` (replacing the store of the same group, version and resource). With
   * `subresources`, those replace the resource's subresource stores; without, the ones it
   * served keep serving as long as the new definition declares them (a store wrapping the
   * one before it).
   */
  add(store: RESTStore, subresources?: SubresourceStore[]): void;
  /** Serves one subresource of a served resource (replacing its store of that name). */
  addSubresource(store: SubresourceStore): void;
  /** Stops serving the resource and its subresources. */
  remove(gv: GroupVersion, resource: string): void;
  /** Called after every change; returns an unsubscribe function. */
  onChange(listener: () => void): () => void;
}
