import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { before, describe, it } from 'node:test';
import type { FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { x509 } from '../../auth/x509-lib.js';
import { prepareCSRApproval, setCSRRequester } from './index.js';
import { strategyOf } from '../../testing/apis.js';

const rendered = (errs: FieldError[]): string[] => errs.map((e) => `${e.field}: ${e.detail}`);
const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const b64 = (text: string): string => Buffer.from(text).toString('base64');

describe('certificate signing requests', () => {
  const s = strategyOf('certificates.orch.io', 'certificatesigningrequests');
  let request = '';
  let certificate = '';
  before(async () => {
    const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as { privateKey: webcrypto.CryptoKey; publicKey: webcrypto.CryptoKey };
    request = b64((await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=alice', keys, signingAlgorithm: alg })).toString('pem'));
    certificate = b64((await x509.X509CertificateGenerator.createSelfSigned({ name: 'CN=alice', keys, signingAlgorithm: alg })).toString('pem'));
  });
  const csr = (): KubeObject => ({
    metadata: { name: 'c' },
    spec: { request, signerName: 'orch.io/apiserver-client', usages: ['client auth', 'digital signature'] },
  });
  const approved = (): KubeObject => ({ ...csr(), status: { conditions: [{ type: 'Approved', status: 'True', reason: 'OK' }] } });

  it('need a request, signer and known usages', () => {
    assert.deepEqual(s.validate(csr()), []);
    assert.deepEqual(rendered(s.validate({ metadata: { name: 'c' }, spec: { usages: ['client auth', 'client auth', 'flying'], expirationSeconds: 60 } })), [
      'spec.request: Required value',
      // Kubernetes lists the supported usages as a sorted set.
      `spec.usages[2]: Unsupported value: "flying": supported values: ${['any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment', 'decipher only', 'digital signature', 'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'key agreement', 'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping'].map((u) => JSON.stringify(u)).join(', ')}`,
      'spec.usages[1]: Duplicate value: "client auth"',
      'spec.signerName: Required value',
      'spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)',
    ]);
  });

  it('need a PEM certificate request, and refuse the legacy signer in v1', () => {
    const o = csr();
    (o.spec as Record<string, unknown>).request = b64('-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n');
    (o.spec as Record<string, unknown>).signerName = 'orch.io/legacy-unknown';
    assert.deepEqual(rendered(s.validate(o)), [
      `spec.request: Invalid value: "${String((o.spec as Record<string, unknown>).request)}": PEM block type must be CERTIFICATE REQUEST`,
      'spec.signerName: Invalid value: "orch.io/legacy-unknown": the legacy signerName is not allowed via this API version',
    ]);
  });

  it('need a request signed by its own key', async () => {
    const rsa = { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' } as const;
    const rsaKeys = (await webcrypto.subtle.generateKey(rsa, true, ['sign', 'verify'])) as { privateKey: webcrypto.CryptoKey; publicKey: webcrypto.CryptoKey };
    const rsaRequest = b64((await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=bob', keys: rsaKeys, signingAlgorithm: rsa })).toString('pem'));
    assert.deepEqual(s.validate({ ...csr(), spec: { ...(csr().spec as object), request: rsaRequest } }), []);

    // The request of the fixture with the last byte of its signature changed.
    const der = Buffer.from(Buffer.from(request, 'base64').toString('latin1').replace(/-----[^-]+-----|\s+/g, ''), 'base64');
    der[der.length - 1] ^= 0x01;
    const tampered = b64(`-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`);
    assert.deepEqual(rendered(s.validate({ ...csr(), spec: { ...(csr().spec as object), request: tampered } })), [`spec.request: Invalid value: "${tampered}": x509: ECDSA verification failure`]);
  });

  it('record the requester', () => {
    const o = csr();
    setCSRRequester(o, { username: 'alice', uid: 'u1', groups: ['devs', 'system:authenticated'] });
    assert.deepEqual((o.spec as Record<string, unknown>).username, 'alice');
    assert.deepEqual((o.spec as Record<string, unknown>).groups, ['devs', 'system:authenticated']);
    assert.equal((o.spec as Record<string, unknown>).uid, 'u1');
  });

  it('keep the spec (and with it the requester) on updates of the object', () => {
    const old = csr();
    setCSRRequester(old, { username: 'alice', groups: [] });
    const next: KubeObject = { ...csr(), spec: { ...(csr().spec as object), username: 'mallory', groups: ['system:masters'] } };
    s.prepareForUpdate(next, old);
    assert.deepEqual(next.spec, old.spec);
  });

  it('change decisions only through approval, certificates only through status', () => {
    const old: KubeObject = { ...csr(), status: {} };
    const approval: KubeObject = { ...csr(), spec: { request: 'changed' }, status: { certificate: 'Zm9v', conditions: [{ type: 'Approved', status: 'True', reason: 'OK' }] } };
    prepareCSRApproval(approval, old, new Date(Date.UTC(2024, 0, 1)));
    assert.deepEqual(approval.spec, old.spec);
    const conditions = (approval.status as { conditions: Record<string, unknown>[]; certificate?: string }).conditions;
    assert.equal((approval.status as { certificate?: string }).certificate, undefined);
    assert.equal(conditions.length, 1);
    assert.equal(conditions[0].type, 'Approved');
    assert.equal(conditions[0].lastUpdateTime, '2024-01-01T00:00:00Z');
    assert.equal(conditions[0].lastTransitionTime, '2024-01-01T00:00:00Z');

    const statusWrite: KubeObject = { ...csr(), status: { certificate, conditions: [{ type: 'Denied', status: 'True' }] } };
    s.prepareForStatusUpdate(statusWrite, approval, new Date());
    const after = statusWrite.status as { certificate: string; conditions: { type: string }[] };
    assert.equal(after.certificate, certificate);
    assert.deepEqual(after.conditions.map((c) => c.type), ['Approved']);
    assert.deepEqual(s.validateUpdate(statusWrite, approval), []);

    assert.deepEqual(rendered(s.validateUpdate({ ...approval, status: {} }, approval)).slice(-1), ['status.conditions: Forbidden: updates may not remove a condition of type "Approved"']);
    const both = { ...csr(), status: { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Denied', status: 'True' }] } };
    assert.deepEqual(rendered(s.validate(both)), ['status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive']);
  });

  it('take only PEM CERTIFICATE blocks as the certificate, on approved requests, once', () => {
    const old = approved();
    const withCert = (c: string, base: KubeObject = old): KubeObject => ({ ...base, status: { ...(base.status as object), certificate: c } });
    const problem = (c: string): string[] => rendered(s.validateUpdate(withCert(c), old));
    assert.deepEqual(problem(certificate), []);
    assert.deepEqual(problem(b64('text around is ignored\n') + ''), ['status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block']);
    assert.deepEqual(problem(b64('-----BEGIN PRIVATE KEY-----\nMAA=\n-----END PRIVATE KEY-----\n')), [
      'status.certificate: Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "PRIVATE KEY"',
    ]);
    assert.deepEqual(problem(b64('-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n\nMAA=\n-----END CERTIFICATE-----\n')), [
      'status.certificate: Invalid value: "<certificate data>": no PEM block headers are permitted',
    ]);
    const pending: KubeObject = { ...csr(), status: {} };
    assert.deepEqual(rendered(s.validateUpdate(withCert(certificate, pending), pending)), ['status.certificate: Forbidden: certificate content may only be set on approved requests']);
    const issued = withCert(certificate);
    assert.deepEqual(rendered(s.validateUpdate(withCert(b64('x'), issued), issued)), ['status.certificate: Forbidden: updates may not modify existing certificate content']);
  });

  it('let a Failed condition in, True only, and never out', () => {
    const failed: KubeObject = { ...approved(), status: { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Failed', status: 'True', reason: 'SignerValidationFailure' }] } };
    assert.deepEqual(s.validate(failed), []);
    assert.deepEqual(rendered(s.validateUpdate(approved(), failed)), ['status.conditions: Forbidden: updates may not remove a condition of type "Failed"']);
    const maybe: KubeObject = { ...csr(), status: { conditions: [{ type: 'Failed', status: 'Unknown' }] } };
    assert.deepEqual(rendered(s.validate(maybe)), ['status.conditions[0].status: Unsupported value: "Unknown": supported values: "True"']);
  });
});
