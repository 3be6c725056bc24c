// The options of each verb, as handlers and clients pass them to a Store.
import type { KubeObject } from '../apimachinery/types.js';

export interface GetOptions {
  resourceVersion?: string;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  limit?: number;
  continue?: string;
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
}

/** Admission's validating hook, run inside the Store after the strategy's validation. */
export type ValidateObjectFunc = (obj: KubeObject, old: KubeObject | undefined) => Promise<void>;

export interface CreateOptions {
  dryRun: boolean;
  fieldManager?: string;
  /** The request's User-Agent: names the manager of a write without `fieldManager`. */
  userAgent?: string;
  validate?: ValidateObjectFunc;
}

export interface UpdateOptions {
  dryRun: boolean;
  fieldManager?: string;
  /** The request's User-Agent: names the manager of a write without `fieldManager`. */
  userAgent?: string;
  force?: boolean;
  validate?: ValidateObjectFunc;
  /** A missing object is created even where PUT may not create (server-side apply). */
  forceAllowCreate?: boolean;
  /**
   * Server-side apply: the Store merges `configuration` into the current object as
   * `fieldManager` (refusing conflicts unless `force`) and hands the result to the update
   * callback as its `applied` argument.
   */
  apply?: { configuration: KubeObject; force: boolean };
  /** Report the store's revision after a removal in `UpdateResult.removedAt` (the object history asks). */
  reportRemoval?: boolean;
}

export interface DeleteOptions {
  dryRun: boolean;
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  /** The deprecated form of the policy (true: Orphan); never set together with `propagationPolicy`. */
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  validate?: ValidateObjectFunc;
  /** Report the store's revision after the removal in `DeleteResult.removedAt` (the object history asks). */
  reportRemoval?: boolean;
  /** deletecollection: told of each object's delete as it is done (the object history records them). */
  onEach?: (result: { object: KubeObject; deleted: boolean; removedAt?: number }) => void;
}
