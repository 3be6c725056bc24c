// The contract between the write path and the object history: what a successful write
// reports. The recorder copies what it keeps before `record` returns, so callers may go on
// using the object.
import type { KubeObject } from '../apimachinery/types.js';

export type HistoryVerb = 'create' | 'update' | 'patch' | 'apply' | 'delete';

export interface WriteRecord {
  /** The resource written, as served (group, resource) and its kind. */
  group: string;
  resource: string;
  apiVersion: string;
  kind: string;
  verb: HistoryVerb;
  /** The subresource written through; absent for the object itself. */
  subresource?: string;
  /** The authenticated user of the request. */
  user: { username: string; groups: readonly string[] };
  /** The request's field manager, when it named one or its User-Agent did. */
  fieldManager?: string;
  /** The object as stored after the write (for a delete: as it was when deleted), with its resourceVersion. */
  object: KubeObject;
}

export interface WriteRecorder {
  record(write: WriteRecord): void;
}
