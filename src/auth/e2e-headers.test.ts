// Request headers the authentication step reads, over HTTPS: malformed bearer headers, and
// `__proto__`, `constructor` and `prototype` as names of user extras (impersonation, the
// authenticating proxy, access reviews). The server runs in this process, so a polluted
// Object.prototype would show here.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCA, issueCert, type TestCert } from '../testing/pki.js';
import { startAuthTestServer, type AuthTestServer, type Identity, type Response } from '../testing/server.js';

const AUTHN = 'authentication.orch.io';
const AUTHZ = 'authorization.orch.io';

function assertPrototypeIntact(): void {
  assert.equal(({} as Record<string, unknown>)['x'], undefined);
  assert.equal(Object.getPrototypeOf({}), Object.prototype);
  assert.equal(typeof ({} as Record<string, unknown>)['constructor'], 'function');
}

describe('authentication headers over HTTPS', () => {
  let s: AuthTestServer;
  let proxyCA: TestCert;
  let proxy: Identity;
  const dir = mkdtempSync(join(tmpdir(), 'orch-auth-headers-'));

  // SelfSubjectReview is beta in 1.27 (v1beta1), served when --runtime-config asks.
  const whoami = (who: Identity) => s.request('POST', `/apis/${AUTHN}/v1beta1/selfsubjectreviews`, who, { apiVersion: `${AUTHN}/v1beta1`, kind: 'SelfSubjectReview' });
  const userInfo = (r: Response) => (r.json['status'] as Record<string, unknown>)['userInfo'] as Record<string, unknown>;
  const stillServes = async () => {
    const r = await s.request('GET', '/api/v1/namespaces/default', s.admin);
    assert.equal(r.status, 200, r.text);
  };

  before(async () => {
    proxyCA = await createCA('front-proxy-ca');
    const caFile = join(dir, 'proxy-ca.crt');
    writeFileSync(caFile, proxyCA.certPem);
    s = await startAuthTestServer([
      `--runtime-config=${AUTHN}/v1beta1=true`,
      `--requestheader-client-ca-file=${caFile}`,
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    ]);
    proxy = { cert: await issueCert(proxyCA, 'front-proxy') };
  });

  after(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 401 for a bearer header with a second word, as kube-apiserver does', async () => {
    for (const header of ['Bearer a b', 'bearer unknown-token trailing']) {
      const r = await s.request('GET', '/healthz', { headers: { Authorization: header } });
      assert.equal(r.status, 401, `${header}: ${r.text}`);
      assert.equal(r.json['message'], 'Unauthorized');
    }
  });

  it('treats an empty bearer token, or another scheme, as no credential (anonymous)', async () => {
    for (const header of ['Bearer', 'Bearer  a', 'Basic YTpi', 'Bearer\ta']) {
      const health = await s.request('GET', '/healthz', { headers: { Authorization: header } });
      assert.equal(health.status, 200, `${header}: ${health.text}`);
      const r = await s.request('GET', '/api/v1/namespaces', { headers: { Authorization: header } });
      assert.equal(r.status, 403, `${header}: ${r.text}`);
      assert.match(String(r.json['message']), /User "system:anonymous" cannot list/);
    }
  });

  it('takes Impersonate-Extra-__proto__, -constructor and -prototype as ordinary extras', async () => {
    const headers = { 'Impersonate-User': 'jane', 'Impersonate-Extra-__proto__': 'x', 'Impersonate-Extra-Constructor': 'c', 'Impersonate-Extra-prototype': 'p' };
    const r = await whoami({ ...s.admin, headers });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(Object.entries(userInfo(r)['extra'] as object), [
      ['__proto__', ['x']],
      ['constructor', ['c']],
      ['prototype', ['p']],
    ]);
    assertPrototypeIntact();
    await stillServes();
  });

  it('takes X-Remote-Extra-__proto__ from the authenticating proxy as an ordinary extra', async () => {
    const r = await whoami({ ...proxy, headers: { 'X-Remote-User': 'pat', 'X-Remote-Extra-__proto__': 'x', 'X-Remote-Extra-constructor': 'c' } });
    assert.equal(r.status, 201, r.text);
    assert.equal(userInfo(r)['username'], 'pat');
    assert.deepEqual(Object.entries(userInfo(r)['extra'] as object), [
      ['__proto__', ['x']],
      ['constructor', ['c']],
    ]);
    assertPrototypeIntact();
    await stillServes();
  });

  it('reviews access for a user whose extra has a __proto__ key', async () => {
    const body = `{"apiVersion":"${AUTHZ}/v1","kind":"SubjectAccessReview","spec":{"user":"jane","extra":{"__proto__":["x"],"constructor":["c"]},"resourceAttributes":{"verb":"get","resource":"pods","namespace":"default"}}}`;
    const r = await s.request('POST', `/apis/${AUTHZ}/v1/subjectaccessreviews`, s.admin, body);
    assert.equal(r.status, 201, r.text);
    assert.equal((r.json['status'] as Record<string, unknown>)['allowed'], false);
    assertPrototypeIntact();
    await stillServes();
  });

  // Needs the server to hand the authenticators each occurrence of a header apart
  // (`distinctHeaders(req.rawHeaders)`); Node's `headers` joins them with ", ".
  it('takes repeated X-Remote-Group and Impersonate-Group headers as separate groups', async () => {
    const proxied = await whoami({ ...proxy, headers: { 'X-Remote-User': 'pat', 'X-Remote-Group': ['pg1', 'pg2'] } });
    assert.deepEqual(userInfo(proxied)['groups'], ['pg1', 'pg2', 'system:authenticated']);
    const impersonated = await whoami({ ...s.admin, headers: { 'Impersonate-User': 'jane', 'Impersonate-Group': ['g1, g2', 'g3'] } });
    assert.deepEqual(userInfo(impersonated)['groups'], ['g1, g2', 'g3', 'system:authenticated']);
  });
});
