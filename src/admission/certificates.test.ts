// The certificate plugins over the real registry, with an authorizer that knows who may
// approve and sign for which signer.
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { test } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import type { KubeObject, UserInfo } from '../apimachinery/types.js';
import { x509 } from '../auth/x509-lib.js';
import { LoopbackClient } from '../server/loopback.js';
import { group } from '../naming/index.js';
import { apiserverClientSigner, csrOrganizations, type SignerAuthorizer } from './certificates.js';
import { fixture } from '../testing/admission.js';
import type { AdmissionAttributes } from './types.js';

const CSR = { group: group('certificates'), version: 'v1', resource: 'certificatesigningrequests' };
const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

async function requestPem(subject: string): Promise<string> {
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as { privateKey: webcrypto.CryptoKey; publicKey: webcrypto.CryptoKey };
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: alg });
  return Buffer.from(csr.toString('pem')).toString('base64');
}

async function selfSignedPem(): Promise<string> {
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as { privateKey: webcrypto.CryptoKey; publicKey: webcrypto.CryptoKey };
  const cert = await x509.X509CertificateGenerator.createSelfSigned({ name: 'CN=issued', keys, signingAlgorithm: alg });
  return cert.toString('pem');
}

function forbidden(message: string): (e: unknown) => boolean {
  return (e: unknown) => {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(e.code, 403);
    assert.equal(e.message, message);
    return true;
  };
}

test('a certificate request reads its subject organizations', async () => {
  assert.deepEqual(csrOrganizations(await requestPem('CN=alice, O=dev, O=system:masters')), ['dev', 'system:masters']);
  assert.throws(() => csrOrganizations(Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n').toString('base64')), /PEM block type must be CERTIFICATE REQUEST/);
});

test('CertificateSubjectRestriction, CertificateApproval and CertificateSigning', async () => {
  const asked: string[] = [];
  // carol may approve and sign anything of example.com; others nothing.
  const authorize: SignerAuthorizer = async (user, verb, name) => {
    asked.push(`${user.username} ${verb} ${name}`);
    return user.username === 'carol' && name === 'example.com/*';
  };
  const f = await fixture({ signerAuthorizer: authorize });
  try {
    const masters = await requestPem('CN=root, O=system:masters');
    await assert.rejects(
      f.client.create(CSR, '', { metadata: { name: 'escalate' }, spec: { request: masters, signerName: apiserverClientSigner(), usages: ['client auth'] } }),
      forbidden(`certificatesigningrequests.certificates.orch.io "escalate" is forbidden: use of orch.io/apiserver-client signer with system:masters group is not allowed`),
    );
    // Other signers may carry the group: that is their business.
    const csr = await f.client.create(CSR, '', { metadata: { name: 'c1' }, spec: { request: masters, signerName: 'example.com/custom', usages: ['client auth'] } });

    const as = (u: UserInfo): LoopbackClient => new LoopbackClient(f.table, u, { admission: f.chain });
    const approved = (o: KubeObject): KubeObject => ({ ...o, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'ok', message: 'ok' }] } });
    // The approval subresource is served by the auth layer; the chain is asked as its handler asks it.
    const approval = (user: UserInfo): AdmissionAttributes => ({
      operation: 'UPDATE',
      kind: { group: CSR.group, version: 'v1', kind: 'CertificateSigningRequest' },
      resource: CSR,
      subresource: 'approval',
      namespace: '',
      name: 'c1',
      object: approved(csr),
      oldObject: csr,
      user,
      dryRun: false,
      warnings: [],
    });
    await assert.rejects(
      f.chain.validate(approval({ username: 'bob', groups: [] })),
      forbidden('certificatesigningrequests.certificates.orch.io "c1" is forbidden: user not permitted to approve requests with signerName "example.com/custom"'),
    );
    assert.deepEqual(asked.splice(0), ['bob approve example.com/custom', 'bob approve example.com/*']);
    await f.chain.validate(approval({ username: 'carol', groups: [] }));
    const ok = await f.plain.update(CSR, '', approved(csr), 'approval');

    // The registry checks the certificate's form before admission asks about signing.
    const pem = await selfSignedPem();
    const issued = (o: KubeObject): KubeObject => ({ ...o, status: { ...(o.status as object), certificate: Buffer.from(pem).toString('base64') } });
    await assert.rejects(
      as({ username: 'bob', groups: [] }).update(CSR, '', issued(ok), 'status'),
      (e: unknown) => e instanceof ApiError && e.code === 403 && e.message.endsWith('user not permitted to sign requests with signerName "example.com/custom"'),
    );
    asked.length = 0;
    // A status write that leaves the certificate alone is not signing.
    await as({ username: 'bob', groups: [] }).update(CSR, '', ok, 'status').catch((e: unknown) => {
      assert.ok(!(e instanceof ApiError && /not permitted to sign/.test(e.message)), String(e));
    });
    assert.deepEqual(asked, []);
  } finally {
    await f.close();
  }
});

test('ClusterTrustBundleAttest: a bundle for a signer needs attest on it, unless the write leaves the bundle as it was', async () => {
  const f = await fixture({ signerAuthorizer: async (user, verb, name) => user.username === 'carol' && verb === 'attest' && name === 'example.com/issuer' });
  try {
    const bundle = { metadata: { name: 'example.com:issuer:b1' }, spec: { signerName: 'example.com/issuer', trustBundle: 'PEM' } };
    const attrs = (username: string, operation: 'CREATE' | 'UPDATE', oldObject?: KubeObject): AdmissionAttributes => ({
      operation,
      kind: { group: CSR.group, version: 'v1alpha1', kind: 'ClusterTrustBundle' },
      resource: { group: CSR.group, version: 'v1alpha1', resource: 'clustertrustbundles' },
      subresource: '',
      namespace: '',
      name: operation === 'CREATE' ? '' : bundle.metadata.name,
      object: structuredClone(bundle),
      ...(oldObject ? { oldObject } : {}),
      user: { username, groups: [] },
      dryRun: false,
      warnings: [],
    });
    await assert.rejects(f.chain.validate(attrs('bob', 'CREATE')), forbidden('clustertrustbundles.certificates.orch.io "example.com:issuer:b1" is forbidden: user not permitted to attest for signerName "example.com/issuer"'));
    await f.chain.validate(attrs('carol', 'CREATE'));
    await f.chain.validate(attrs('bob', 'UPDATE', structuredClone(bundle)));
    await assert.rejects(f.chain.validate(attrs('bob', 'UPDATE', { ...bundle, spec: { ...bundle.spec, trustBundle: 'OLD' } })), /not permitted to attest/);
  } finally {
    await f.close();
  }
});
