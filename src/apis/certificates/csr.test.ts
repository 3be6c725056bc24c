import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { prepareCSRApproval, setCSRRequester } from './index.js';
import { strategyOf } from '../testing.js';

const rendered = (errs: FieldError[]): string[] => errs.map((e) => `${e.field}: ${e.detail}`);

describe('certificate signing requests', () => {
  const s = strategyOf('certificates.orch.io', 'certificatesigningrequests');
  const csr = (): KubeObject => ({
    metadata: { name: 'c' },
    spec: { request: 'LS0t', signerName: 'orch.io/kube-apiserver-client', usages: ['client auth', 'digital signature'] },
  });

  it('need a request, signer and known usages', () => {
    assert.deepEqual(s.validate(csr()), []);
    assert.deepEqual(rendered(s.validate({ metadata: { name: 'c' }, spec: { usages: ['client auth', 'client auth', 'flying'], expirationSeconds: 60 } })), [
      'spec.request: Required value',
      'spec.signerName: Required value',
      'spec.usages[1]: Duplicate value: "client auth"',
      `spec.usages[2]: Unsupported value: "flying": supported values: ${['signing', 'digital signature', 'content commitment', 'key encipherment', 'key agreement', 'data encipherment', 'cert sign', 'crl sign', 'encipher only', 'decipher only', 'any', 'server auth', 'client auth', 'code signing', 'email protection', 's/mime', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'timestamping', 'ocsp signing', 'microsoft sgc', 'netscape sgc'].map((u) => JSON.stringify(u)).join(', ')}`,
      'spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)',
    ]);
  });

  it('record the requester', () => {
    const o = csr();
    setCSRRequester(o, { username: 'alice', uid: 'u1', groups: ['devs', 'system:authenticated'] });
    assert.deepEqual((o.spec as Record<string, unknown>).username, 'alice');
    assert.deepEqual((o.spec as Record<string, unknown>).groups, ['devs', 'system:authenticated']);
    assert.equal((o.spec as Record<string, unknown>).uid, 'u1');
  });

  it('change decisions only through approval, certificates only through status', () => {
    const old: KubeObject = { ...csr(), status: {} };
    const approval: KubeObject = { ...csr(), spec: { request: 'changed' }, status: { certificate: 'Zm9v', conditions: [{ type: 'Approved', status: 'True', reason: 'OK' }] } };
    prepareCSRApproval(approval, old);
    assert.deepEqual(approval.spec, old.spec);
    const conditions = (approval.status as { conditions: Record<string, unknown>[]; certificate?: string }).conditions;
    assert.equal((approval.status as { certificate?: string }).certificate, undefined);
    assert.equal(conditions.length, 1);
    assert.equal(conditions[0].type, 'Approved');
    assert.match(String(conditions[0].lastUpdateTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const statusWrite: KubeObject = { ...csr(), status: { certificate: 'Y2VydA==', conditions: [{ type: 'Denied', status: 'True' }] } };
    s.prepareForStatusUpdate(statusWrite, approval);
    const after = statusWrite.status as { certificate: string; conditions: { type: string }[] };
    assert.equal(after.certificate, 'Y2VydA==');
    assert.deepEqual(after.conditions.map((c) => c.type), ['Approved']);

    assert.deepEqual(rendered(s.validateUpdate({ ...approval, status: {} }, approval)).slice(-1), ['status.conditions: Forbidden: updates may not remove a condition of type "Approved"']);
    const both = { ...csr(), status: { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Denied', status: 'True' }] } };
    assert.deepEqual(rendered(s.validate(both)), ['status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive']);
  });
});
