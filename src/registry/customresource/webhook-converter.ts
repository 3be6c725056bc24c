// Webhook conversion of custom resources, as kube-apiserver's webhook converter does it: the
// objects that are not yet in the desired version go out in one ConversionReview (the first
// review version of the definition's list this server speaks), and the answer is checked
// (review type and uid, result, count, each object's apiVersion, kind, name, namespace and
// uid); of the metadata, only labels and annotations may change. Failures are the plain 500
// Kubernetes answers, worded as it words them. The HTTPS call is injected: it is the
// admission webhooks' client, which lives in a layer above this one.
import { randomUUID } from 'node:crypto';
import { ApiError, type FieldError } from '../../apimachinery/errors.js';
import { isQualifiedName, isValidLabelValue } from '../../apimachinery/labels.js';
import { getOwn, setOwn } from '../../apimachinery/own.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { group } from '../../naming/index.js';

/** Kubernetes gives a conversion webhook 30 seconds; the field is not configurable. */
export const CONVERSION_WEBHOOK_TIMEOUT_SECONDS = 30;

/** The review versions this server speaks, in no order of preference: the definition's list decides. */
const REVIEW_VERSIONS = ['v1', 'v1beta1'];

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

export interface ConversionServiceReference {
  namespace: string;
  name: string;
  /** Empty when the reference has none. */
  path: string;
  port: number;
}

/** Where a conversion webhook is and how long a call may take. */
export interface ConversionWebhookTarget {
  /** `conversion_webhook_for_<definition name>`. */
  name: string;
  url?: string;
  service?: ConversionServiceReference;
  /** PEM text decoded from `caBundle`; empty means the system's roots. */
  caBundle: string;
  timeoutSeconds: number;
}

/** The HTTPS call to a webhook (the admission webhooks' client, with its service resolution). */
export interface ConversionWebhookTransport {
  /**
   * POSTs `review` as JSON and resolves with the decoded answer. Rejects with an Error whose
   * message is the text Go's REST client gives (`Post "<url>": ...`, or the Status message).
   */
  post(target: ConversionWebhookTarget, review: unknown): Promise<unknown>;
}

export interface WebhookConverterOptions {
  target: ConversionWebhookTarget;
  /** `spec.conversion.webhook.conversionReviewVersions`. */
  reviewVersions: string[];
  transport?: ConversionWebhookTransport;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A 500 without a reason: how kube-apiserver answers an error that is not a Status. */
export function conversionError(message: string): ApiError {
  const err = new ApiError(500, '', message);
  delete err.status.reason;
  return err;
}

/** Go's `%T` of a decoded JSON value. */
function goType(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'bigint') return 'int64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** `group/version, Kind=kind`, as Go prints a GroupVersionKind. */
function gvkText(obj: KubeObject): string {
  return `${typeof obj.apiVersion === 'string' ? obj.apiVersion : ''}, Kind=${typeof obj.kind === 'string' ? obj.kind : ''}`;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function metaOf(obj: Json): Json {
  const m = getOwn(obj, 'metadata');
  return isObject(m) ? m : {};
}

/** The names a converted object must keep: kind, name, namespace, uid. */
function sameIdentity(original: KubeObject, converted: Json): string | undefined {
  const a = metaOf(original as Json);
  const b = metaOf(converted);
  const pairs: [string, string, string][] = [
    ['kind', str(original.kind), str(getOwn(converted, 'kind'))],
    ['name', str(a.name), str(b.name)],
    ['namespace', str(a.namespace), str(b.namespace)],
    ['UID', str(a.uid), str(b.uid)],
  ];
  for (const [what, e, g] of pairs) if (e !== g) return `must have the same ${what}: ${e} != ${g}`;
  return undefined;
}

function fieldErrorText(errs: FieldError[]): string {
  const texts = errs.map((e) => `${e.field}: ${e.detail}`);
  return texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
}

function labelErrors(labels: Record<string, string>): FieldError[] {
  const errs: FieldError[] = [];
  const invalid = (value: string, msg: string): FieldError => ({ type: 'FieldValueInvalid', field: 'metadata.labels', detail: `Invalid value: ${JSON.stringify(value)}: ${msg}` });
  for (const [k, v] of Object.entries(labels)) {
    for (const msg of isQualifiedName(k)) errs.push(invalid(k, msg));
    for (const msg of isValidLabelValue(v)) errs.push(invalid(v, msg));
  }
  return errs;
}

function annotationErrors(annotations: Record<string, string>): FieldError[] {
  // Kubernetes names the path `metadata.annotation` here.
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push({ type: 'FieldValueInvalid', field: 'metadata.annotation', detail: `Invalid value: ${JSON.stringify(k)}: ${msg}` });
    size += k.length + v.length;
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) {
    errs.push({ type: 'FieldValueTooLong', field: 'metadata.annotation', detail: `Too long: must have at most ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes` });
  }
  return errs;
}

/**
 * Puts the original metadata back into `converted`, keeping the labels and annotations the
 * webhook answered (checked when they changed). Returns why not, if the answer is unusable.
 */
export function restoreObjectMeta(original: KubeObject, converted: Json): string | undefined {
  if (!Object.hasOwn(converted, 'metadata')) return 'missing metadata in converted object';
  const answered = getOwn(converted, 'metadata');
  if (!isObject(answered)) return `invalid metadata of type ${goType(answered)} in converted object`;
  const restored: Json = isObject(original.metadata) ? structuredClone(original.metadata as Json) : {};
  for (const field of ['labels', 'annotations'] as const) {
    const value = getOwn(answered, field);
    if (value === undefined || value === null) {
      delete restored[field];
      continue;
    }
    if (!isObject(value)) return `invalid metadata.${field} of type ${goType(value)} in converted object`;
    const before = getOwn(restored, field);
    if (before !== undefined && before !== null && !isObject(before)) return `invalid metadata.${field} of type ${goType(before)} in original object`;
    const old = isObject(before) ? before : {};
    let changed = Object.keys(old).length !== Object.keys(value).length;
    const strings: Record<string, string> = {};
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== 'string') return `metadata.${field}[${k}] must be a string, but is ${goType(v)} in converted object`;
      if (getOwn(old, k) !== v) changed = true;
      setOwn(strings, k, v);
    }
    if (changed) {
      const errs = field === 'labels' ? labelErrors(strings) : annotationErrors(strings);
      if (errs.length > 0) return fieldErrorText(errs);
    }
    setOwn(restored, field, value);
  }
  setOwn(converted, 'metadata', restored);
  return undefined;
}

/** The converted objects of an answer, or why the answer is not one. */
function convertedObjects(reviewVersion: string, uid: string, answer: unknown): unknown[] | string {
  const review = isObject(answer) ? answer : {};
  if (reviewVersion === 'v1') {
    // v1beta1 answers were never checked for type and uid; v1 answers are.
    const expected = `${group('apiextensions')}/v1, Kind=ConversionReview`;
    const got = `${str(getOwn(review, 'apiVersion'))}, Kind=${str(getOwn(review, 'kind'))}`;
    if (got !== expected) return `expected webhook response of ${expected}, got ${got}`;
  }
  const response = getOwn(review, 'response');
  if (!isObject(response)) return 'no response provided';
  if (reviewVersion === 'v1' && str(getOwn(response, 'uid')) !== uid) {
    return `expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(str(getOwn(response, 'uid')))}`;
  }
  const result = getOwn(response, 'result');
  const status = isObject(result) ? str(getOwn(result, 'status')) : '';
  if (status !== 'Success') {
    const message = isObject(result) ? str(getOwn(result, 'message')) : '';
    return message !== '' ? message : `response.result.status was '${status}', not 'Success'`;
  }
  const objects = getOwn(response, 'convertedObjects');
  return Array.isArray(objects) ? objects : [];
}

/** One definition's conversion webhook. */
export class WebhookConverter {
  constructor(private readonly opts: WebhookConverterOptions) {}

  /**
   * `objs` in `desiredAPIVersion`, in one review for those not already in it. `single` words
   * failures as Kubernetes does for one object; otherwise as for a list.
   */
  async convert(objs: KubeObject[], desiredAPIVersion: string, single: boolean): Promise<KubeObject[]> {
    const pending: number[] = [];
    for (let i = 0; i < objs.length; i++) if (objs[i].apiVersion !== desiredAPIVersion) pending.push(i);
    if (pending.length === 0) return objs;
    const reviewVersion = this.opts.reviewVersions.find((v) => REVIEW_VERSIONS.includes(v));
    if (reviewVersion === undefined) throw conversionError('no supported conversion review versions');

    const what = `conversion webhook for ${gvkText(objs[pending[0]])}`;
    const uid = randomUUID();
    const review = {
      kind: 'ConversionReview',
      apiVersion: `${group('apiextensions')}/${reviewVersion}`,
      request: { uid, desiredAPIVersion, objects: pending.map((i) => objs[i]) },
      // Go sends the empty response struct along with the request.
      response: { uid: '', convertedObjects: null, result: { metadata: {} } },
    };
    const transport = this.opts.transport;
    if (!transport) throw conversionError(`${what} failed: no client for conversion webhooks is configured`);
    let answer: unknown;
    try {
      answer = await transport.post(this.opts.target, review);
    } catch (err) {
      throw conversionError(`${what} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    const converted = convertedObjects(reviewVersion, uid, answer);
    if (typeof converted === 'string') throw conversionError(`${what} failed: ${converted}`);
    if (converted.length !== pending.length) throw conversionError(`${what} returned ${converted.length} objects, expected ${pending.length}`);

    const out = objs.slice();
    for (let n = 0; n < pending.length; n++) {
      const original = objs[pending[n]];
      const object = converted[n];
      // Kubernetes' list path counts from 1 once the object is decoded; one object is "index 0".
      const at = single ? 'invalid object at index 0' : `invalid converted object at index ${n + 1}`;
      if (!isObject(object) || str(getOwn(object, 'kind')) === '') {
        const text = `Object 'Kind' is missing in '${JSON.stringify(object) ?? 'null'}'`;
        throw conversionError(single ? text : `${what} returned invalid converted object at index ${n}: ${text}`);
      }
      const gotVersion = str(getOwn(object, 'apiVersion'));
      if (gotVersion !== desiredAPIVersion) throw conversionError(`${what} returned ${at}: invalid groupVersion (expected ${desiredAPIVersion}, received ${gotVersion})`);
      const gotKind = str(getOwn(object, 'kind'));
      if (gotKind !== str(original.kind)) throw conversionError(`${what} returned ${at}: invalid kind (expected ${str(original.kind)}, received ${gotKind})`);
      const identity = sameIdentity(original, object);
      if (identity) throw conversionError(`${what} returned ${single ? 'invalid object' : at}: ${identity}`);
      const metaProblem = restoreObjectMeta(original, object);
      if (metaProblem) {
        throw conversionError(`${what} returned ${single ? 'invalid metadata' : `invalid metadata in object at index ${n + 1}`}: ${metaProblem}`);
      }
      out[pending[n]] = object as KubeObject;
    }
    return out;
  }
}
