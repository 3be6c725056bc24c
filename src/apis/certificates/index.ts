// CertificateSigningRequests: required signer, request and usages; the signer name as a
// field selector; and the CSR columns.
import { duplicateField, invalidField, notSupportedField, requiredField, type FieldError } from '../../apimachinery/errors.js';
import type { KubeObject, UserInfo } from '../../apimachinery/types.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, humanDuration, nameColumn, since } from '../table.js';
import { arr, at, child, clone, meta, num, obj, objs, str, type JsonObject } from '../util.js';
import { setOwn } from '../../apimachinery/own.js';
import { rfc3339 } from '../../apimachinery/time.js';

const KEY_USAGES = [
  'signing',
  'digital signature',
  'content commitment',
  'key encipherment',
  'key agreement',
  'data encipherment',
  'cert sign',
  'crl sign',
  'encipher only',
  'decipher only',
  'any',
  'server auth',
  'client auth',
  'code signing',
  'email protection',
  's/mime',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'timestamping',
  'ocsp signing',
  'microsoft sgc',
  'netscape sgc',
];

const DECISIONS = ['Approved', 'Denied'];

function validateConditions(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  objs(at(o, 'status.conditions')).forEach((c, i) => {
    const path = `status.conditions[${i}]`;
    const type = str(c.type) ?? '';
    if (type === '') errs.push(requiredField(`${path}.type`));
    else if (seen.has(type)) errs.push(duplicateField(`${path}.type`, type));
    seen.add(type);
    if (c.status === undefined || c.status === '') errs.push(requiredField(`${path}.status`));
    else if (!['True', 'False', 'Unknown'].includes(String(c.status))) errs.push(notSupportedField(`${path}.status`, c.status, ['False', 'True', 'Unknown']));
  });
  if (seen.has('Approved') && seen.has('Denied')) {
    const i = objs(at(o, 'status.conditions')).findIndex((c) => c.type === 'Denied');
    errs.push(invalidField(`status.conditions[${i}].type`, 'Denied', 'Approved and Denied conditions are mutually exclusive'));
  }
  return errs;
}

function validate(o: KubeObject): FieldError[] {
  const errs: FieldError[] = validateConditions(o);
  if (!str(at(o, 'spec.request'))) errs.push(requiredField('spec.request'));
  if (!str(at(o, 'spec.signerName'))) errs.push(requiredField('spec.signerName'));

  const usages = arr(at(o, 'spec.usages'));
  if (usages.length === 0) errs.push(requiredField('spec.usages'));
  const seen = new Set<string>();
  usages.forEach((u, i) => {
    if (typeof u !== 'string' || !KEY_USAGES.includes(u)) errs.push(notSupportedField(`spec.usages[${i}]`, u, KEY_USAGES));
    else if (seen.has(u)) errs.push(duplicateField(`spec.usages[${i}]`, u));
    if (typeof u === 'string') seen.add(u);
  });
  const exp = at(o, 'spec.expirationSeconds');
  if (exp !== undefined && (typeof exp !== 'number' || exp < 600)) {
    errs.push({ type: 'FieldValueInvalid', field: 'spec.expirationSeconds', detail: `Invalid value: ${String(exp)}: may not specify a duration less than 600 seconds (10 minutes)` });
  }
  return errs;
}

/** Denied over Approved over Pending, then Failed and Issued when they apply. */
function condition(o: KubeObject): string {
  const types = new Set(objs(at(o, 'status.conditions')).map((c) => String(c.type)));
  let status = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) status += ',Failed';
  if (str(at(o, 'status.certificate'))) status += ',Issued';
  return status;
}

/** Conditions of the given types taken from `from`, the others from `to`, in `to`'s order. */
function mergeConditions(to: unknown, from: unknown, types: string[]): JsonObject[] {
  const kept = objs(to).filter((c) => !types.includes(String(c.type)));
  return [...kept, ...objs(from).filter((c) => types.includes(String(c.type))).map((c) => clone(c))];
}

function stampConditions(o: KubeObject, old: KubeObject | undefined, now: string): void {
  for (const c of objs(at(o, 'status.conditions'))) {
    const before = objs(at(old, 'status.conditions')).find((x) => x.type === c.type);
    if (!str(c.lastUpdateTime)) c.lastUpdateTime = now;
    if (!str(c.lastTransitionTime)) c.lastTransitionTime = before && before.status === c.status && str(before.lastTransitionTime) ? before.lastTransitionTime : now;
  }
}

/** Who asked: the create records the requesting user in the spec, as the signer needs it. */
export function setCSRRequester(o: KubeObject, user: UserInfo): void {
  const spec = child(o, 'spec');
  spec.username = user.username;
  if (user.uid) spec.uid = user.uid;
  else delete spec.uid;
  spec.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length > 0) spec.extra = clone(user.extra);
  else delete spec.extra;
}

/**
 * The `approval` subresource: only the Approved and Denied conditions change; everything
 * else, the certificate included, is kept from the stored object.
 */
export function prepareCSRApproval(o: KubeObject, old: KubeObject): void {
  const conditions = mergeConditions(at(old, 'status.conditions'), at(o, 'status.conditions'), DECISIONS);
  for (const key of Object.keys(o)) if (key !== 'metadata' && key !== 'apiVersion' && key !== 'kind') delete o[key];
  for (const [key, value] of Object.entries(old)) if (key !== 'metadata' && key !== 'apiVersion' && key !== 'kind') setOwn(o, key, clone(value));
  const status = child(o, 'status');
  if (conditions.length > 0) status.conditions = conditions;
  else delete status.conditions;
  stampConditions(o, old, rfc3339(new Date()));
}

const certificateSigningRequests: KindSpec = {
  prepareForStatusUpdate(o, old) {
    // Approval and denial go through the approval subresource only.
    const status = obj(o.status);
    if (status) {
      const conditions = mergeConditions(status.conditions, at(old, 'status.conditions'), DECISIONS);
      if (conditions.length > 0) status.conditions = conditions;
      else delete status.conditions;
    }
    stampConditions(o, old, rfc3339(new Date()));
  },
  validateUpdate(o, old) {
    const errs: FieldError[] = [];
    for (const type of DECISIONS) {
      const had = objs(at(old, 'status.conditions')).some((c) => c.type === type);
      const has = objs(at(o, 'status.conditions')).some((c) => c.type === type);
      if (had && !has) errs.push({ type: 'FieldValueForbidden', field: 'status.conditions', detail: `Forbidden: updates may not remove a condition of type "${type}"` });
    }
    if (str(at(old, 'status.certificate')) && at(o, 'status.certificate') !== at(old, 'status.certificate')) {
      errs.push({ type: 'FieldValueForbidden', field: 'status.certificate', detail: 'Forbidden: updates may not modify existing certificate content' });
    }
    return errs;
  },
  validate,
  fields: { 'spec.signerName': (o) => str(at(o, 'spec.signerName')) ?? '' },
  table: {
    columns: [
      nameColumn,
      ageColumn,
      column('SignerName', 'string', 'Only one signer name is allowed per request.'),
      column('Requestor', 'string', 'Name of the user requesting the certificate.'),
      column('RequestedDuration', 'string', 'expirationSeconds is the requested duration of validity of the issued certificate.'),
      column('Condition', 'string', 'The latest state of the certificate.'),
    ],
    cells(o, now) {
      const seconds = num(at(o, 'spec.expirationSeconds'));
      return [
        meta(o).name ?? '',
        since(meta(o).creationTimestamp, now),
        str(at(o, 'spec.signerName')) || '<none>',
        str(at(o, 'spec.username')) ?? '',
        seconds === undefined ? '<none>' : humanDuration(seconds * 1000),
        condition(o),
      ];
    },
  },
};

export const certificatesKinds: Record<string, KindSpec> = { CertificateSigningRequest: certificateSigningRequests };
