// Validation of list, watch and delete options (Kubernetes' ValidateListOptions and
// ValidateDeleteOptions), before a Store reads or deletes anything.
import type { FieldError } from '../apimachinery/errors.js';
import { ApiError, forbiddenField, invalid, invalidField, notSupportedField } from '../apimachinery/errors.js';
import { metaGroup } from '../naming/index.js';
import type { DeleteOptions, ListOptions } from '../rest/index.js';

// List and watch option validation. The checks and messages are Kubernetes'
// ValidateListOptions; the code is 400 Bad Request, as the specification's error table
// requires for invalid resourceVersion/resourceVersionMatch combinations (Kubernetes itself
// answers 422 Invalid with the same text).

function listOptionsInvalid(errs: FieldError[]): ApiError {
  const { message, details } = invalid({ group: metaGroup(), kind: 'ListOptions' }, '', errs).status;
  return new ApiError(400, 'BadRequest', message ?? 'invalid list options', details);
}

export function validateListOptions(opts: ListOptions): void {
  const errs: FieldError[] = [];
  const match = opts.resourceVersionMatch;
  if (match) {
    if (!opts.resourceVersion) errs.push(forbiddenField('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (opts.continue) errs.push(forbiddenField('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') errs.push(notSupportedField('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && opts.resourceVersion === '0') {
      errs.push(forbiddenField('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (opts.sendInitialEvents !== undefined) errs.push(forbiddenField('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  if (errs.length > 0) throw listOptionsInvalid(errs);
}

export function validateDeleteOptions(opts: DeleteOptions): void {
  const errs: FieldError[] = [];
  const policy: unknown = opts.propagationPolicy;
  if (policy !== undefined && policy !== 'Foreground' && policy !== 'Background' && policy !== 'Orphan') {
    errs.push(notSupportedField('propagationPolicy', policy, ['Foreground', 'Background', 'Orphan', 'nil']));
  }
  // A negative grace period is not an error: the delete path reads it as one second.
  if (opts.gracePeriodSeconds !== undefined && !Number.isInteger(opts.gracePeriodSeconds)) {
    errs.push(invalidField('gracePeriodSeconds', opts.gracePeriodSeconds, 'must be an integer'));
  }
  if (errs.length > 0) throw invalid({ group: metaGroup(), kind: 'DeleteOptions' }, '', errs);
}

/** Watch options as release 1.27 accepts them (the WatchList feature gate is off). */
export function validateWatchOptions(opts: ListOptions): void {
  const errs: FieldError[] = [];
  const match = opts.resourceVersionMatch;
  if (opts.sendInitialEvents !== undefined) {
    if (match !== 'NotOlderThan') errs.push(forbiddenField('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    errs.push(forbiddenField('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'));
  }
  if (match) {
    if (opts.sendInitialEvents === undefined) {
      errs.push(forbiddenField('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    }
    if (match !== 'NotOlderThan') errs.push(notSupportedField('resourceVersionMatch', match, ['NotOlderThan']));
    if (opts.continue) errs.push(forbiddenField('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  if (errs.length > 0) throw listOptionsInvalid(errs);
}
