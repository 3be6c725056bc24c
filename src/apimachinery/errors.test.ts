import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_INVALID_CAUSES, invalid, type FieldError } from './errors.js';

describe('invalid', () => {
  const errs = (n: number): FieldError[] => Array.from({ length: n }, (_, i) => ({ type: 'FieldValueInvalid', field: 'metadata.labels', detail: `Invalid value: "-k${i}"` }));

  it('lists every error up to the cap', () => {
    const e = invalid({ group: '', kind: 'ConfigMap' }, 'c', errs(2));
    assert.equal(e.status.message, 'ConfigMap "c" is invalid: [metadata.labels: Invalid value: "-k0", metadata.labels: Invalid value: "-k1"]');
    assert.equal(e.status.details?.causes?.length, 2);
  });

  it('bounds the causes and the message of a huge error list, saying how many were left out', () => {
    const e = invalid({ group: '', kind: 'ConfigMap' }, 'c', errs(150000));
    assert.equal(e.status.details?.causes?.length, MAX_INVALID_CAUSES);
    assert.match(e.status.message ?? '', /, and 149900 more errors\]$/);
    assert.ok(JSON.stringify(e.status).length < 20000);
  });
});
