// Storage errors as the registry sees them, and the registry's own Kubernetes messages.
import type { FieldError } from '../apimachinery/errors.js';
import { invalid, resourceExpired } from '../apimachinery/errors.js';
import { LATEST_REVISION, encodeContinue } from './continue.js';
import {
  CompactedError,
  ConflictError,
  KeyExistsError,
  NotFoundError,
  TooLargeResourceVersionError,
  TooOldResourceVersionError,
} from '../storage/interface.js';

// Backends may be loaded from another copy of the interface module (workers, bundles):
// recognize the errors by name as well as by class.
function isNamed(e: unknown, cls: { name: string }): boolean {
  return e instanceof Error && e.name === cls.name;
}

export function isKeyExists(e: unknown): e is KeyExistsError {
  return e instanceof KeyExistsError || isNamed(e, KeyExistsError);
}
export function isStorageNotFound(e: unknown): e is NotFoundError {
  return e instanceof NotFoundError || isNamed(e, NotFoundError);
}
export function isStorageConflict(e: unknown): e is ConflictError {
  return e instanceof ConflictError || isNamed(e, ConflictError);
}
export function isCompacted(e: unknown): e is CompactedError {
  return e instanceof CompactedError || isNamed(e, CompactedError);
}
export function isTooOld(e: unknown): e is TooOldResourceVersionError {
  return e instanceof TooOldResourceVersionError || isNamed(e, TooOldResourceVersionError);
}
export function isTooLarge(e: unknown): e is TooLargeResourceVersionError {
  return e instanceof TooLargeResourceVersionError || isNamed(e, TooLargeResourceVersionError);
}

export const EXPIRED_LIST_MESSAGE = 'The resourceVersion for the provided list is too old.';
export const INCONSISTENT_CONTINUE_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

export function expiredList() {
  return resourceExpired(EXPIRED_LIST_MESSAGE);
}

/**
 * 410 for a continue token whose snapshot was compacted. Like Kubernetes, the Status
 * carries in `metadata.continue` a token that goes on from the same key at the latest
 * revision.
 */
export function expiredContinue(start: string) {
  const err = resourceExpired(INCONSISTENT_CONTINUE_MESSAGE);
  err.status.metadata.continue = encodeContinue({ revision: LATEST_REVISION, start });
  return err;
}

/** Resource versions are decimal revisions; anything else is 422, as Kubernetes' versioner answers. */
export function parseResourceVersion(rv: string, gk: { group: string; kind: string }, name: string): number {
  if (/^\d+$/.test(rv) && Number.isSafeInteger(Number(rv))) return Number(rv);
  const detail = /^\d+$/.test(rv)
    ? `strconv.ParseUint: parsing ${JSON.stringify(rv)}: value out of range`
    : `strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`;
  const err: FieldError = { type: 'FieldValueInvalid', field: 'resourceVersion', detail: `Invalid value: ${JSON.stringify(rv)}: ${detail}` };
  throw invalid(gk, name, [err]);
}
