// CertificateSigningRequests: required signer, request and usages; the signer name as a
// field selector; and the CSR columns.
import { duplicateField, notSupportedField, requiredField, type FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, humanDuration, nameColumn, since } from '../table.js';
import { arr, at, meta, num, objs, str } from '../util.js';

export const KEY_USAGES = [
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

function validate(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
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

function condition(o: KubeObject): string {
  const types = objs(at(o, 'status.conditions'))
    .filter((c) => c.status === undefined || c.status === 'True')
    .map((c) => String(c.type));
  const out = [...types];
  if (types.includes('Approved') && str(at(o, 'status.certificate'))) out.push('Issued');
  return out.length > 0 ? out.join(',') : 'Pending';
}

export const certificateSigningRequests: KindSpec = {
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
