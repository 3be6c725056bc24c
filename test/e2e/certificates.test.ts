// Black-box, Kubernetes' flavor: a user asks for a client certificate, `kubectl certificate
// approve` approves it, the signing controller issues it with the server's CA, and the
// certificate then authenticates as its subject.
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { realClock } from '../../src/apimachinery/clock.js';
import { x509 } from '../../src/auth/x509-lib.js';
import { SharedInformerFactory } from '../../src/client/informer-factory.js';
import { csrSigningController } from '../../src/controllers/certificates/index.js';
import { DEFAULT_CONTROLLER_OPTIONS, type RunningController } from '../../src/controllers/types.js';
import { setFlavor } from '../../src/naming/index.js';
import { eventually, Kubectl, kubectlPath, serverUnavailable, startTestServer, type TestServer } from './harness.js';
import { testControllerContext } from '../../src/testing/controllers.js';

const binary = kubectlPath();
const skip = serverUnavailable() ?? (binary ? undefined : 'kubectl is not on PATH');
const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

function get(url: string, tls: { ca: string; cert: string; key: string }): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ...tls, method: 'GET', headers: { accept: 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('certificates through kubectl (kubernetes flavor)', { skip }, () => {
  let server: TestServer;
  let kubectl: Kubectl;
  let signer: RunningController;
  let informers: SharedInformerFactory;

  before(async () => {
    setFlavor('kubernetes');
    server = await startTestServer({ flavor: 'kubernetes' });
    kubectl = new Kubectl(binary!, server.kubeconfigPath);
    // The signing controller runs beside the server, signing with the server's CA as it does by default.
    const ctx = testControllerContext(server.client, {
      clock: realClock,
      options: { ...DEFAULT_CONTROLLER_OPTIONS, clusterSigningCertFile: join(server.dataDir, 'pki', 'ca.crt'), clusterSigningKeyFile: join(server.dataDir, 'pki', 'ca.key') },
    });
    informers = ctx.informers;
    signer = await csrSigningController().start(ctx);
    informers.start();
  });

  after(async () => {
    await signer?.stop();
    await informers?.stop();
    kubectl?.dispose();
    await server?.stop();
    setFlavor('orch');
  });

  test('certificate approve, then the issued certificate authenticates as its subject', async () => {
    const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as { privateKey: webcrypto.CryptoKey; publicKey: webcrypto.CryptoKey };
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=jane, O=devs', keys, signingAlgorithm: alg });
    const manifest = {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'jane' },
      spec: { request: Buffer.from(csr.toString('pem')).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth', 'digital signature'], expirationSeconds: 86400 },
    };
    const created = await kubectl.run(['create', '-f', '-'], { input: JSON.stringify(manifest) });
    assert.equal(created.code, 0, created.stderr);

    const pending = await kubectl.run(['get', 'csr', 'jane', '-o', 'jsonpath={.spec.username} {.status}']);
    assert.equal(pending.stdout, 'admin {}');

    const approved = await kubectl.run(['certificate', 'approve', 'jane']);
    assert.equal(approved.code, 0, approved.stderr);
    assert.equal(approved.stdout.trim(), 'certificatesigningrequest.certificates.k8s.io/jane approved');

    const issued = await eventually(async () => {
      const r = await kubectl.run(['get', 'csr', 'jane', '-o', 'jsonpath={.status.certificate}']);
      return r.stdout || undefined;
    }, 'the certificate issued');
    const table = await kubectl.run(['get', 'csr', 'jane', '--no-headers']);
    assert.match(table.stdout, /^jane\s+\S+\s+kubernetes\.io\/kube-apiserver-client\s+admin\s+24h\s+Approved,Issued\s*$/);
    const condition = await kubectl.run(['get', 'csr', 'jane', '-o', 'jsonpath={.status.conditions[0].type} {.status.conditions[0].reason}']);
    assert.equal(condition.stdout, 'Approved KubectlApprove');

    const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
    const tls = {
      ca: readFileSync(join(server.dataDir, 'pki', 'ca.crt'), 'utf8'),
      cert: Buffer.from(issued, 'base64').toString('utf8'),
      key: `-----BEGIN PRIVATE KEY-----\n${pkcs8}\n-----END PRIVATE KEY-----\n`,
    };
    const res = await get(`${server.url}/api/v1/namespaces/default/configmaps`, tls);
    assert.equal(res.status, 403);
    assert.equal(res.body.message, 'configmaps is forbidden: User "jane" cannot list resource "configmaps" in API group "" in the namespace "default"');
  });

  test('approval needs approve on the signer, by name or by domain; a denial stands', async () => {
    const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as { privateKey: webcrypto.CryptoKey; publicKey: webcrypto.CryptoKey };
    const request = Buffer.from((await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=joe', keys, signingAlgorithm: alg })).toString('pem')).toString('base64');
    for (const name of ['joe', 'joe2']) {
      const manifest = { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request, signerName: 'example.com/custom', usages: ['client auth'] } };
      assert.equal((await kubectl.run(['create', '-f', '-'], { input: JSON.stringify(manifest) })).code, 0);
    }
    // bob may update approvals, but approve no signer yet.
    const rbac = [
      ['create', 'clusterrole', 'csr-approver', '--verb=get,list,watch', '--resource=certificatesigningrequests'],
      ['create', 'clusterrole', 'csr-approval', '--verb=update', '--resource=certificatesigningrequests/approval'],
      ['create', 'clusterrolebinding', 'bob-csr', '--clusterrole=csr-approver', '--user=bob'],
      ['create', 'clusterrolebinding', 'bob-approval', '--clusterrole=csr-approval', '--user=bob'],
    ];
    for (const args of rbac) assert.equal((await kubectl.run(args)).code, 0, args.join(' '));
    const refused = await kubectl.run(['--as=bob', 'certificate', 'approve', 'joe']);
    assert.notEqual(refused.code, 0);
    assert.equal(refused.stderr.trim(), 'Error from server (Forbidden): certificatesigningrequests.certificates.k8s.io "joe" is forbidden: user not permitted to approve requests with signerName "example.com/custom"');

    // `signers` is no served resource, so the role is written as a manifest.
    const signers = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'custom-signers' },
      rules: [{ apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['example.com/*'], verbs: ['approve'] }],
    };
    const role = await kubectl.run(['create', '-f', '-'], { input: JSON.stringify(signers) });
    assert.equal(role.code, 0, role.stderr);
    assert.equal((await kubectl.run(['create', 'clusterrolebinding', 'bob-signers', '--clusterrole=custom-signers', '--user=bob'])).code, 0);
    const allowed = await eventually(async () => {
      const r = await kubectl.run(['--as=bob', 'certificate', 'approve', 'joe']);
      return r.code === 0 ? r : undefined;
    }, 'bob approves once the role reaches the authorizer');
    assert.equal(allowed.stdout.trim(), 'certificatesigningrequest.certificates.k8s.io/joe approved');

    const denied = await kubectl.run(['--as=bob', 'certificate', 'deny', 'joe2']);
    assert.equal(denied.code, 0, denied.stderr);
    const again = await kubectl.run(['--as=bob', 'certificate', 'approve', 'joe2']);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /is already Denied/);
  });
});
