// Verbs both clients offer beyond the shared `ApiClient` contract. Callers that can use
// them (the namespace controller) check for them, so any `ApiClient` still works.
import type { GroupVersionResource } from '../apimachinery/types.js';
import type { ApiClient } from './types.js';
import type { DeleteOptions, ListOptions } from '../rest/index.js';

export interface CollectionDeleter {
  /** DELETE on a collection (deletecollection), with label and field selectors. */
  deleteCollection(
    r: GroupVersionResource,
    namespace: string,
    opts?: Partial<DeleteOptions>,
    listOpts?: Omit<ListOptions, 'allowWatchBookmarks' | 'continue' | 'limit'>,
  ): Promise<void>;
}

export function canDeleteCollection(client: ApiClient): client is ApiClient & CollectionDeleter {
  return typeof (client as Partial<CollectionDeleter>).deleteCollection === 'function';
}
