// CertificateSigningRequests: required signer, request and usages; the requester fixed at
// creation; decisions through `approval`, certificates through `status`; the signer name as
// a field selector; and the CSR columns.
import { duplicateField, forbiddenField, invalidField, notSupportedField, requiredField, type FieldError } from '../../apimachinery/errors.js';
import type { KubeObject, UserInfo } from '../../apimachinery/types.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, humanDuration, nameColumn, since } from '../table.js';
import { arr, at, child, clone, meta, num, obj, objs, str, type JsonObject } from '../util.js';
import { setOwn } from '../../apimachinery/own.js';
import { rfc3339 } from '../../apimachinery/time.js';
import { decodeBytesField, isDerSequences, pemBlocks, requestSignatureProblem, signerName } from './signers.js';

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

/** Kubernetes lists the supported usages as a sorted set. */
const SORTED_USAGES = [...KEY_USAGES].sort();

const DECISIONS = ['Approved', 'Denied'];
const LEGACY_REFUSED = 'the legacy signerName is not allowed via this API version';
/** Condition types whose status may only be True. */
const TRUE_ONLY = ['Approved', 'Denied', 'Failed'];

function validateConditions(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  objs(at(o, 'status.conditions')).forEach((c, i) => {
    const path = `status.conditions[${i}]`;
    const type = str(c.type) ?? '';
    if (type === '') errs.push(requiredField(`${path}.type`));
    const allowed = TRUE_ONLY.includes(type) ? ['True'] : ['False', 'True', 'Unknown'];
    if (c.status === undefined || c.status === '') errs.push(requiredField(`${path}.status`));
    else if (!allowed.includes(String(c.status))) errs.push(notSupportedField(`${path}.status`, c.status, allowed));
    if ((type === 'Approved' && denied) || (type === 'Denied' && approved)) {
      errs.push(invalidField(`${path}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
    }
    if (type === 'Approved') approved = true;
    if (type === 'Denied') denied = true;
    if (seen.has(type)) errs.push(duplicateField(`${path}.type`, type));
    seen.add(type);
  });
  return errs;
}

/** Why `request` (base64 of PEM) is not a certificate request, or undefined. */
function requestProblem(request: string): string | undefined {
  const block = pemBlocks(decodeBytesField(request))[0];
  if (!block || block.type !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  if (!isDerSequences(block.der)) return 'asn1: syntax error: data truncated';
  return requestSignatureProblem(block.der);
}

/** Why `certificate` (base64 of PEM) is not a chain of PEM CERTIFICATE blocks, or undefined. */
export function certificateProblem(certificate: string): string | undefined {
  const blocks = pemBlocks(decodeBytesField(certificate));
  for (const block of blocks) {
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(block.type)}`;
    if (Object.keys(block.headers).length > 0) return 'no PEM block headers are permitted';
    if (!isDerSequences(block.der)) return 'x509: malformed certificate';
  }
  if (blocks.length === 0) return 'must contain at least one CERTIFICATE PEM block';
  return undefined;
}

function validate(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const request = at(o, 'spec.request');
  if (!str(request)) errs.push(requiredField('spec.request'));
  else {
    const problem = requestProblem(String(request));
    if (problem) errs.push(invalidField('spec.request', request, problem));
  }

  const usages = arr(at(o, 'spec.usages'));
  if (usages.length === 0) errs.push(requiredField('spec.usages'));
  usages.forEach((u, i) => {
    if (typeof u !== 'string' || !KEY_USAGES.includes(u)) errs.push(notSupportedField(`spec.usages[${i}]`, u, SORTED_USAGES));
  });
  const seen = new Set<unknown>();
  usages.forEach((u, i) => {
    if (seen.has(u)) errs.push(duplicateField(`spec.usages[${i}]`, u));
    seen.add(u);
  });
  const signer = str(at(o, 'spec.signerName')) ?? '';
  if (!signer) errs.push(requiredField('spec.signerName'));
  else if (signer === signerName('legacy-unknown')) errs.push(invalidField('spec.signerName', signer, LEGACY_REFUSED));
  const exp = at(o, 'spec.expirationSeconds');
  if (exp !== undefined && (typeof exp !== 'number' || exp < 600)) {
    errs.push({ type: 'FieldValueInvalid', field: 'spec.expirationSeconds', detail: `Invalid value: ${String(exp)}: may not specify a duration less than 600 seconds (10 minutes)` });
  }
  errs.push(...validateConditions(o));
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

/** Fills the update and transition times a write left out (the transition kept while the status stays). */
export function stampCSRConditions(o: KubeObject, old: KubeObject | undefined, now: Date): void {
  stampConditions(o, old, rfc3339(now));
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
export function prepareCSRApproval(o: KubeObject, old: KubeObject, now: Date = new Date()): void {
  const conditions = mergeConditions(at(old, 'status.conditions'), at(o, 'status.conditions'), DECISIONS);
  for (const key of Object.keys(o)) if (key !== 'metadata' && key !== 'apiVersion' && key !== 'kind') delete o[key];
  for (const [key, value] of Object.entries(old)) if (key !== 'metadata' && key !== 'apiVersion' && key !== 'kind') setOwn(o, key, clone(value));
  const status = child(o, 'status');
  if (conditions.length > 0) status.conditions = conditions;
  else delete status.conditions;
  stampConditions(o, old, rfc3339(now));
}

const certificateSigningRequests: KindSpec = {
  prepareForCreate(o, requester) {
    // Whatever the client wrote as the requester is replaced by the caller's identity.
    if (requester) setCSRRequester(o, requester);
  },
  prepareForUpdate(o, old) {
    // The request, its signer and the requester are fixed at creation; only metadata changes here.
    if (old.spec === undefined) delete o.spec;
    else o.spec = clone(old.spec);
  },
  prepareForStatusUpdate(o, old, now) {
    // Approval and denial go through the approval subresource only.
    const status = obj(o.status);
    if (status) {
      const conditions = mergeConditions(status.conditions, at(old, 'status.conditions'), DECISIONS);
      if (conditions.length > 0) status.conditions = conditions;
      else delete status.conditions;
    }
    stampConditions(o, old, rfc3339(now));
  },
  subresources: { approval: { serving: { by: 'part', part: { prepareForUpdate: prepareCSRApproval } } } },
  validateUpdate(o, old) {
    const errs: FieldError[] = [];
    for (const type of [...DECISIONS, 'Failed']) {
      const had = objs(at(old, 'status.conditions')).filter((c) => c.type === type).length;
      const has = objs(at(o, 'status.conditions')).filter((c) => c.type === type).length;
      if (has < had) errs.push(forbiddenField('status.conditions', `updates may not remove a condition of type ${JSON.stringify(type)}`));
    }
    const certificate = str(at(o, 'status.certificate')) ?? '';
    const before = str(at(old, 'status.certificate')) ?? '';
    if (certificate !== before) {
      if (before !== '') errs.push(forbiddenField('status.certificate', 'updates may not modify existing certificate content'));
      else {
        const problem = certificateProblem(certificate);
        if (problem) errs.push(invalidField('status.certificate', '<certificate data>', problem));
        else if (!objs(at(o, 'status.conditions')).some((c) => c.type === 'Approved' && c.status === 'True')) {
          errs.push(forbiddenField('status.certificate', 'certificate content may only be set on approved requests'));
        }
      }
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
