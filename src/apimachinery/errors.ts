// ApiError carries the exact `Status` object a client receives. Every layer above storage
// throws these; the server writes `error.status` as the body with `error.status.code`.
// Messages follow the wording Kubernetes clients and users know.

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  /** ListMeta: a 410 for an expired continue token carries a token that finishes the list. */
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

export class ApiError extends Error {
  readonly status: Status;

  constructor(code: number, reason: string, message: string, details?: StatusDetails) {
    super(message);
    this.name = 'ApiError';
    // Built in the order Go declares the fields, which is the order they are written in.
    this.status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
  }

  get code(): number {
    return this.status.code;
  }

  get reason(): string {
    return this.status.reason ?? '';
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

/** A resource as named in messages: `pods`, `deployments.apps`. */
export interface QualifiedResource {
  group: string;
  resource: string;
}

function qualified(r: QualifiedResource): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

export function successStatus(details?: StatusDetails): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', ...(details ? { details } : {}), code: 200 };
}

export function notFound(r: QualifiedResource, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualified(r)} "${name}" not found`, {
    name,
    group: r.group,
    kind: r.resource,
  });
}

export function alreadyExists(r: QualifiedResource, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${qualified(r)} "${name}" already exists`, {
    name,
    group: r.group,
    kind: r.resource,
  });
}

const OBJECT_MODIFIED_MESSAGE =
  'the object has been modified; please apply your changes to the latest version and try again';

export function conflict(r: QualifiedResource, name: string, detail: string = OBJECT_MODIFIED_MESSAGE): ApiError {
  return new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(r)} "${name}": ${detail}`, {
    name,
    group: r.group,
    kind: r.resource,
  });
}

/** One field error, as Kubernetes' field.Error: a cause reason and a rendered message. */
export interface FieldError {
  /** `FieldValueRequired`, `FieldValueInvalid`, `FieldValueNotSupported`, `FieldValueDuplicate`, `FieldValueForbidden`, `FieldValueTooLong`, `FieldValueTypeInvalid`. */
  type: string;
  field: string;
  /** The detail text without the field path: `Required value`, `Invalid value: "x": must be ...`. */
  detail: string;
}

export function requiredField(field: string, detail?: string): FieldError {
  return { type: 'FieldValueRequired', field, detail: detail ? `Required value: ${detail}` : 'Required value' };
}

export function invalidField(field: string, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, detail: `Invalid value: ${renderValue(value)}: ${detail}` };
}

export function forbiddenField(field: string, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field, detail: `Forbidden: ${detail}` };
}

export function notSupportedField(field: string, value: unknown, valid: string[]): FieldError {
  const list = valid.map((v) => JSON.stringify(v)).join(', ');
  return { type: 'FieldValueNotSupported', field, detail: `Unsupported value: ${renderValue(value)}: supported values: ${list}` };
}

export function duplicateField(field: string, value: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field, detail: `Duplicate value: ${renderValue(value)}` };
}

function renderValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * The most field errors a 422 lists. kube-apiserver 1.27 lists every one, so a body with
 * 150,000 bad label keys answered tens of megabytes; the answer is bounded here instead, the
 * message saying how many were left out.
 */
export const MAX_INVALID_CAUSES = 100;

/** 422 Invalid: `Pod "x" is invalid: [a: Required value, b: ...]`. */
export function invalid(gk: { group: string; kind: string }, name: string, allErrors: FieldError[]): ApiError {
  const errors = allErrors.length > MAX_INVALID_CAUSES ? allErrors.slice(0, MAX_INVALID_CAUSES) : allErrors;
  const rendered = errors.map((e) => (e.field ? `${e.field}: ${e.detail}` : e.detail));
  const omitted = allErrors.length - errors.length;
  if (omitted > 0) rendered.push(`and ${omitted} more errors`);
  const list = rendered.length === 1 ? rendered[0] : `[${rendered.join(', ')}]`;
  const kind = gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
  return new ApiError(422, 'Invalid', `${kind} "${name}" is invalid: ${list}`, {
    name,
    group: gk.group,
    kind: gk.kind,
    causes: errors.map((e) => ({ reason: e.type, message: e.detail, field: e.field })),
  });
}

export function badRequest(message: string, causes?: StatusCause[]): ApiError {
  return new ApiError(400, 'BadRequest', message, causes ? { causes } : undefined);
}

export function unauthorized(message = 'Unauthorized'): ApiError {
  return new ApiError(401, 'Unauthorized', message);
}

/** 403: `pods "x" is forbidden: <reason>` (name may be empty for collections). */
export function forbidden(r: QualifiedResource, name: string, reason: string): ApiError {
  const subject = name ? `${qualified(r)} "${name}"` : qualified(r);
  return new ApiError(403, 'Forbidden', `${subject} is forbidden: ${reason}`, {
    name: name || undefined,
    group: r.group,
    kind: r.resource,
  });
}

/** 403 on a non-resource path: `forbidden: User "x" cannot get path "/metrics"`. */
export function forbiddenPath(reason: string): ApiError {
  return new ApiError(403, 'Forbidden', `forbidden: ${reason}`);
}

export function methodNotSupported(r: QualifiedResource, action: string): ApiError {
  return new ApiError(405, 'MethodNotAllowed', `${action} is not supported on resources of kind "${qualified(r)}"`, {
    group: r.group,
    kind: r.resource,
  });
}

export function notAcceptable(accepted: string[]): ApiError {
  return new ApiError(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
}

export function unsupportedMediaType(accepted: string[]): ApiError {
  return new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}

/** 410 Expired: a watch or list from a resource version older than retained history. */
export function resourceExpired(message: string): ApiError {
  return new ApiError(410, 'Expired', message);
}

export function requestEntityTooLarge(limitBytes: number): ApiError {
  return new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limitBytes}`);
}

export function tooManyRequests(message: string, retryAfterSeconds: number): ApiError {
  return new ApiError(429, 'TooManyRequests', message, { retryAfterSeconds });
}

export function internalError(err: unknown): ApiError {
  const message = err instanceof Error ? err.message : String(err);
  return new ApiError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
}

export function serviceUnavailable(message: string): ApiError {
  return new ApiError(503, 'ServiceUnavailable', message);
}

/** 504 for a resource version the store has not reached in time. */
export function tooLargeResourceVersion(requested: number, current: number, retryAfterSeconds = 1): ApiError {
  return new ApiError(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds,
  });
}
