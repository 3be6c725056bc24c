// The AdmissionReview exchange: the request body sent to a webhook (v1 or v1beta1), the
// checks on its answer, and the errors a call can end in. Pure.
import { ApiError, badRequest, serviceUnavailable, type Status } from '../../apimachinery/errors.js';
import type { GroupVersionKind, GroupVersionResource, KubeObject, UserInfo } from '../../apimachinery/types.js';
import { group } from '../../naming/index.js';
import type { AdmissionOperation } from '../types.js';

const SUPPORTED_REVIEW_VERSIONS = ['v1', 'v1beta1'] as const;
type ReviewVersion = (typeof SUPPORTED_REVIEW_VERSIONS)[number];

/** A failure to call a webhook or to understand its answer; `failurePolicy` decides what it means. */
export class CallingWebhookError extends Error {
  constructor(
    readonly webhookName: string,
    /** Why, without the webhook's name. */
    readonly reason: string,
    /** The status that stands for the failure (its code labels the rejection metric). */
    readonly status: ApiError,
  ) {
    super(`failed calling webhook ${JSON.stringify(webhookName)}: ${reason}`);
    this.name = 'CallingWebhookError';
  }
}

/** The webhook answered `allowed: false`. */
export class WebhookRejection extends Error {
  constructor(readonly status: ApiError) {
    super(status.message);
    this.name = 'WebhookRejection';
  }
}

/** The first version of the webhook's list this server speaks; undefined when none. */
export function reviewVersionFor(admissionReviewVersions: string[]): ReviewVersion | undefined {
  return admissionReviewVersions.find((v): v is ReviewVersion => (SUPPORTED_REVIEW_VERSIONS as readonly string[]).includes(v));
}

export function noKnownReviewVersion(webhookName: string): CallingWebhookError {
  return new CallingWebhookError(
    webhookName,
    'could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)',
    badRequest('error creating admission objects'),
  );
}

interface ReviewRequestInput {
  uid: string;
  /** The kind and resource the webhook sees (differ from the request's under `Equivalent`). */
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subresource: string;
  requestKind: GroupVersionKind;
  requestResource: GroupVersionResource;
  requestSubresource: string;
  name: string;
  namespace: string;
  operation: AdmissionOperation;
  user: UserInfo;
  object?: KubeObject;
  oldObject?: KubeObject;
  options?: Record<string, unknown>;
  dryRun: boolean;
}

function userInfoOf(u: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (u.username) out.username = u.username;
  if (u.uid) out.uid = u.uid;
  if (u.groups.length > 0) out.groups = [...u.groups];
  if (u.extra && Object.keys(u.extra).length > 0) out.extra = structuredClone(u.extra);
  return out;
}

/** The AdmissionReview a webhook receives, fields in the order Kubernetes writes them. */
export function buildAdmissionReview(version: ReviewVersion, r: ReviewRequestInput): Record<string, unknown> {
  const request: Record<string, unknown> = {
    uid: r.uid,
    kind: { group: r.kind.group, version: r.kind.version, kind: r.kind.kind },
    resource: { group: r.resource.group, version: r.resource.version, resource: r.resource.resource },
  };
  if (r.subresource) request.subResource = r.subresource;
  request.requestKind = { group: r.requestKind.group, version: r.requestKind.version, kind: r.requestKind.kind };
  request.requestResource = { group: r.requestResource.group, version: r.requestResource.version, resource: r.requestResource.resource };
  if (r.requestSubresource) request.requestSubResource = r.requestSubresource;
  if (r.name) request.name = r.name;
  if (r.namespace) request.namespace = r.namespace;
  request.operation = r.operation;
  request.userInfo = userInfoOf(r.user);
  // Absent objects and options are written as null, as Go writes an empty raw extension.
  request.object = r.object ?? null;
  request.oldObject = r.oldObject ?? null;
  request.dryRun = r.dryRun;
  request.options = r.operation === 'CONNECT' ? null : (r.options ?? null);
  return { kind: 'AdmissionReview', apiVersion: `${group('admission')}/${version}`, request };
}

export interface AdmissionResponse {
  allowed: boolean;
  /** The decoded JSON patch text (mutating webhooks only). */
  patch?: string;
  patchType: string;
  result?: Record<string, unknown>;
  auditAnnotations: Record<string, string>;
  warnings: string[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function invalidResponse(webhookName: string, why: string): CallingWebhookError {
  return new CallingWebhookError(webhookName, `received invalid webhook response: ${why}`, serviceUnavailable('error validating webhook response'));
}

/** Go's rendering of a GroupVersionKind: `group/version, Kind=kind`. */
function gvkString(apiVersion: unknown, kind: unknown): string {
  const av = typeof apiVersion === 'string' ? apiVersion : '';
  const k = typeof kind === 'string' ? kind : '';
  const slash = av.indexOf('/');
  const g = slash < 0 ? '' : av.slice(0, slash);
  const v = slash < 0 ? av : av.slice(slash + 1);
  return g ? `${g}/${v}, Kind=${k}` : `${v}, Kind=${k}`;
}

/**
 * Checks a webhook's answer the way each review version is held to: v1 must echo the uid and
 * the type, and send patch and patchType together; v1beta1 is taken as it comes, a patch
 * being a JSON patch. Throws CallingWebhookError.
 */
export function verifyAdmissionResponse(webhookName: string, version: ReviewVersion, uid: string, mutating: boolean, body: unknown): AdmissionResponse {
  const review = isObject(body) ? body : {};
  const response = review.response;
  if (!isObject(response)) throw invalidResponse(webhookName, 'webhook response was absent');
  const patchText = typeof response.patch === 'string' && response.patch !== '' ? Buffer.from(response.patch, 'base64').toString('utf8') : undefined;
  const hasPatchType = response.patchType !== undefined && response.patchType !== null;
  let patchType = '';
  if (version === 'v1') {
    const got = typeof response.uid === 'string' ? response.uid : '';
    if (got !== uid) throw invalidResponse(webhookName, `expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(got)}`);
    const want = `${group('admission')}/v1`;
    if (review.apiVersion !== want || review.kind !== 'AdmissionReview') {
      throw invalidResponse(webhookName, `expected webhook response of ${gvkString(want, 'AdmissionReview')}, got ${gvkString(review.apiVersion, review.kind)}`);
    }
    if (mutating) {
      if (patchText !== undefined && !hasPatchType) throw invalidResponse(webhookName, 'webhook returned response.patch but not response.patchType');
      if (patchText === undefined && hasPatchType) throw invalidResponse(webhookName, 'webhook returned response.patchType but not response.patch');
      if (hasPatchType) {
        patchType = typeof response.patchType === 'string' ? response.patchType : '';
        if (patchType === '') throw invalidResponse(webhookName, `webhook returned invalid response.patchType of ""`);
      }
    } else {
      if (patchText !== undefined) throw invalidResponse(webhookName, 'validating webhook may not return response.patch');
      if (hasPatchType) throw invalidResponse(webhookName, 'validating webhook may not return response.patchType');
    }
  } else if (mutating && patchText !== undefined) {
    patchType = 'JSONPatch';
  }
  const annotations: Record<string, string> = {};
  if (isObject(response.auditAnnotations)) {
    for (const [k, v] of Object.entries(response.auditAnnotations)) if (typeof v === 'string') annotations[k] = v;
  }
  const out: AdmissionResponse = {
    allowed: response.allowed === true,
    patchType,
    auditAnnotations: annotations,
    warnings: Array.isArray(response.warnings) ? response.warnings.filter((w): w is string => typeof w === 'string') : [],
  };
  if (mutating && patchText !== undefined) out.patch = patchText;
  if (isObject(response.status)) out.result = response.status;
  return out;
}

/**
 * The status a rejection answers: the webhook's own code (403 below 400), reason and
 * details, with a message that names the webhook.
 */
export function rejectionError(webhookName: string, result: Record<string, unknown> | undefined): ApiError {
  const r = result ?? {};
  const deniedBy = `admission webhook ${JSON.stringify(webhookName)} denied the request`;
  const code = typeof r.code === 'number' && Number.isInteger(r.code) && r.code >= 400 ? r.code : 403;
  const message = typeof r.message === 'string' && r.message !== '' ? r.message : '';
  const reason = typeof r.reason === 'string' ? r.reason : '';
  const text = message ? `${deniedBy}: ${message}` : reason ? `${deniedBy}: ${reason}` : `${deniedBy} without explanation`;
  const err = new ApiError(code, reason, text, isObject(r.details) ? (structuredClone(r.details) as Status['details']) : undefined);
  if (!reason) delete err.status.reason;
  return err;
}
