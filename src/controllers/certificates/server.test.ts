// The certificate controllers in a whole server of each flavor: a client certificate request
// to the API server's client signer, once approved, is signed by the server's own
// controllers (none of them is skipped for a group the flavor does not serve).
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { x509 } from '../../auth/x509-lib.js';
import { startAuthTestServer, type AuthTestServer } from '../../testing/server.js';
import { eventually } from '../../testing/wait.js';

const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

const FLAVORS = [
  { flavor: 'kubernetes', args: ['--compat=kubernetes'], group: 'certificates.k8s.io', signer: 'kubernetes.io/kube-apiserver-client' },
  { flavor: 'orch', args: [], group: 'certificates.orch.io', signer: 'orch.io/apiserver-client' },
] as const;

for (const f of FLAVORS) {
  describe(`certificate signing requests in a server (${f.flavor} flavor)`, () => {
    let s: AuthTestServer;
    before(async () => {
      s = await startAuthTestServer([...f.args]);
    });
    after(async () => s?.stop());

    it('starts every certificate controller', () => {
      assert.deepEqual(
        s.logs.filter((l) => /"csr(signing|approving|cleaner)"/.test(l)),
        [],
      );
    });

    it('signs an approved request for the API server client signer', async () => {
      const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
      const request = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=jane, O=devs', keys, signingAlgorithm: alg });
      const path = `/apis/${f.group}/v1/certificatesigningrequests`;
      const created = await s.request('POST', path, s.admin, {
        apiVersion: `${f.group}/v1`,
        kind: 'CertificateSigningRequest',
        metadata: { name: 'jane' },
        spec: { request: Buffer.from(request.toString('pem')).toString('base64'), signerName: f.signer, usages: ['client auth', 'digital signature'] },
      });
      assert.equal(created.status, 201, created.text);
      const approval = { ...created.json, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved by the test' }] } };
      const approved = await s.request('PUT', `${path}/jane/approval`, s.admin, approval);
      assert.equal(approved.status, 200, approved.text);

      const certificate = await eventually(async () => {
        const r = await s.request('GET', `${path}/jane`, s.admin);
        return (r.json.status as { certificate?: string } | undefined)?.certificate;
      }, 'status.certificate filled by the signing controller');
      const cert = new x509.X509Certificate(Buffer.from(certificate, 'base64').toString('latin1'));
      assert.equal(cert.subject, 'CN=jane, O=devs');
      assert.equal(cert.issuer, new x509.X509Certificate(s.serverCA).subject);
    });
  });
}
