// The client contract that controllers, bootstrap code and auth's object lookups use. Two
// implementations: in-process (straight to the resource table, as a privileged user) and
// HTTPS (a remote server, from a kubeconfig). Both speak served group names.
import type { GroupVersionResource, KubeList, KubeObject, WatchEvent } from '../apimachinery/types.js';
import type { DeleteOptions, ListOptions } from '../rest/index.js';

export interface ApiClient {
  /** Throws ApiError 404 when missing. `namespace` is '' for cluster-scoped resources. */
  get(r: GroupVersionResource, namespace: string, name: string, subresource?: string): Promise<KubeObject>;
  /** `namespace` '' lists across all namespaces (or a cluster-scoped resource). */
  list(r: GroupVersionResource, namespace: string, opts?: Omit<ListOptions, 'allowWatchBookmarks'>): Promise<KubeList>;
  /** Ends when `signal` aborts or the server ends the watch. */
  watch(r: GroupVersionResource, namespace: string, opts: ListOptions, signal: AbortSignal): AsyncIterable<WatchEvent>;
  create(r: GroupVersionResource, namespace: string, obj: KubeObject, subresource?: { name: string; subresource: string }): Promise<KubeObject>;
  /** PUT; the object's metadata.resourceVersion is the precondition when set. */
  update(r: GroupVersionResource, namespace: string, obj: KubeObject, subresource?: string): Promise<KubeObject>;
  /** JSON merge patch (RFC 7386). */
  patch(r: GroupVersionResource, namespace: string, name: string, mergePatch: unknown, subresource?: string): Promise<KubeObject>;
  /** Resolves with the object as the server returned it (or undefined when it answered a Status). */
  delete(r: GroupVersionResource, namespace: string, name: string, opts?: Partial<DeleteOptions>): Promise<KubeObject | undefined>;
}
