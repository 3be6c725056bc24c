import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { X509Authenticator, parseCertificateBundle, verifyClientChain } from './x509.js';
import { UnionAuthenticator } from './union.js';
import { createCA, issueCert, type TestCert } from '../../testing/pki.js';
import { isApiError } from '../../apimachinery/errors.js';

describe('x509 client certificates', () => {
  let ca: TestCert;
  let otherCA: TestCert;
  let mid: TestCert;
  before(async () => {
    ca = await createCA('test-ca');
    otherCA = await createCA('other-ca');
    mid = await createCA('intermediate', { issuer: ca });
  });

  const auth = () => new UnionAuthenticator([new X509Authenticator(() => parseCertificateBundle(otherCA.certPem + ca.certPem))], true);

  it('maps CN to the user and O to groups, plus system:authenticated', async () => {
    const leaf = await issueCert(ca, 'alice', { orgs: ['dev', 'ops'] });
    const r = await auth().authenticate({ headers: {}, clientCertificateChain: [leaf.der] });
    assert.deepEqual(r?.user, { username: 'alice', groups: ['dev', 'ops', 'system:authenticated'] });
  });

  it('accepts a chain through a presented intermediate', async () => {
    const leaf = await issueCert(mid, 'bob');
    const r = await auth().authenticate({ headers: {}, clientCertificateChain: [leaf.der, mid.der] });
    assert.equal(r?.user.username, 'bob');
  });

  it('rejects a chain missing its intermediate', async () => {
    const leaf = await issueCert(mid, 'bob');
    await assert.rejects(auth().authenticate({ headers: {}, clientCertificateChain: [leaf.der] }), (e) => isApiError(e) && e.code === 401);
  });

  it('rejects a certificate of an unknown CA with 401 and no detail', async () => {
    const stranger = await createCA('stranger');
    const leaf = await issueCert(stranger, 'mallory', { orgs: ['system:masters'] });
    await assert.rejects(
      auth().authenticate({ headers: {}, clientCertificateChain: [leaf.der] }),
      (e) => isApiError(e) && e.code === 401 && e.message === 'Unauthorized',
    );
  });

  it('rejects expired certificates and server-only certificates', async () => {
    const expired = await issueCert(ca, 'old', { notBefore: new Date(Date.now() - 7_200_000), notAfter: new Date(Date.now() - 3_600_000) });
    assert.throws(() => verifyClientChain([expired.der], [ca.cert ? parseCertificateBundle(ca.certPem)[0]! : assert.fail()]), /expired/);
    const server = await issueCert(ca, 'srv', { usage: 'server' });
    assert.throws(() => verifyClientChain([server.der], parseCertificateBundle(ca.certPem)), /key usage/);
  });

  it('is anonymous without a certificate, or nothing when anonymous is off', async () => {
    const r = await auth().authenticate({ headers: {}, clientCertificateChain: [] });
    assert.deepEqual(r?.user, { username: 'system:anonymous', groups: ['system:unauthenticated'] });
    const off = new UnionAuthenticator([new X509Authenticator(() => [])], false);
    assert.equal(await off.authenticate({ headers: {}, clientCertificateChain: [] }), null);
  });
});
