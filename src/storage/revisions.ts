// Checks shared by the backends for reads at a revision.

import { CompactedError, TooLargeResourceVersionError } from './interface.js';

/** The revision a read runs at: the current one unless asked, never compacted or future. */
export function readRevision(requested: number | undefined, current: number, compacted: number): number {
  if (requested === undefined || requested === 0) return current;
  if (!Number.isSafeInteger(requested) || requested < 0) {
    throw new CompactedError(requested, compacted);
  }
  if (requested > current) throw new TooLargeResourceVersionError(requested, current);
  if (requested < compacted) throw new CompactedError(requested, compacted);
  return requested;
}

/** A list page size: undefined, zero or negative mean no limit. */
export function pageLimit(limit: number | undefined): number {
  return limit === undefined || !(limit > 0) ? Number.POSITIVE_INFINITY : Math.floor(limit);
}
