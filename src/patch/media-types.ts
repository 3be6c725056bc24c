// The patch media types, and the 415 for one a resource does not accept (Kubernetes lists
// the accepted types and gives no further details).

import { ApiError } from '../apimachinery/errors.js';

export const JSON_PATCH_TYPE = 'application/json-patch+json';
export const MERGE_PATCH_TYPE = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH_TYPE = 'application/strategic-merge-patch+json';
export const APPLY_PATCH_TYPE = 'application/apply-patch+yaml';

/** The media types of every patch format, in the order built-in kinds list them. */
export const BUILTIN_PATCH_TYPES = [JSON_PATCH_TYPE, MERGE_PATCH_TYPE, STRATEGIC_MERGE_PATCH_TYPE, APPLY_PATCH_TYPE];

/** The patch media types a custom resource accepts (no strategic merge patch). */
export const CUSTOM_RESOURCE_PATCH_TYPES = [JSON_PATCH_TYPE, MERGE_PATCH_TYPE, APPLY_PATCH_TYPE];

/** The patch type of a Content-Type header: parameters (`; charset=...`) are cut off, nothing else. */
export function patchTypeOf(contentType: string): string {
  const semicolon = contentType.indexOf(';');
  return semicolon > 0 ? contentType.slice(0, semicolon) : contentType;
}

/** 415 for a patch media type the resource does not take, listing those it does. */
export function unsupportedPatchType(accepted: string[]): ApiError {
  return new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}
