// The Status objects Kubernetes answers when a patch cannot be applied. The patch handler
// maps failures to three shapes: 400 BadRequest with the failure's text, 422 with the generic
// text of an unprocessable request (the failure's own text is not shown to the client), and,
// for failures it does not classify, 500 with the failure's text and no reason.

import { ApiError, badRequest } from '../apimachinery/errors.js';

export { badRequest };

const UNPROCESSABLE_MESSAGE = 'the server rejected our request due to an error in our request';

/** 422 as Kubernetes' generic server response: reason Invalid, empty details, fixed message. */
export function unprocessablePatch(cause: string): ApiError {
  const err = new ApiError(422, 'Invalid', UNPROCESSABLE_MESSAGE, {});
  // Not part of the Status a client sees; kept for logs and tests.
  (err as Error).cause = cause;
  return err;
}

/** 500 for an unclassified failure: the message is the failure's text and there is no reason. */
export function unclassifiedPatchError(message: string): ApiError {
  const err = new ApiError(500, '', message);
  delete err.status.reason;
  return err;
}

export function requestEntityTooLarge(message: string): ApiError {
  return new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`);
}
