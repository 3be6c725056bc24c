// The 415 for a patch media type a resource does not accept. Kubernetes answers it with the
// list of accepted types and no further details.

import { ApiError } from '../apimachinery/errors.js';

export function unsupportedMediaTypeStatus(accepted: string[]): ApiError {
  return new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}
