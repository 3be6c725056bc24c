// The data directory's PKI, made with node:crypto alone: each certificate chains to its CA
// and says what it is for; a TLS handshake accepts them both ways; a CA made by the X.509
// library (data directories of earlier versions) still issues certificates that chain to it;
// and a later start reuses everything.
import assert from 'node:assert/strict';
import { createPrivateKey, webcrypto, X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ensurePki } from './pki.js';
import { loadSigningCA } from '../controllers/certificates/signing.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'orch-pki-test-'));
  dirs.push(d);
  return d;
}

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const cert = (path: string): X509Certificate => new X509Certificate(readFileSync(path));

test('a first start makes a CA and certificates that chain to it, each for its use', async () => {
  const p = await ensurePki(tempDir(), '127.0.0.2');
  const ca = cert(p.caCert);
  assert.equal(ca.ca, true);
  assert.equal(ca.subject, 'CN=orch-ca');
  assert.ok(ca.verify(ca.publicKey), 'the CA is self-signed');
  const serving = cert(p.servingCert);
  assert.equal(serving.ca, false);
  assert.ok(serving.checkIssued(ca) && serving.verify(ca.publicKey));
  assert.deepEqual(serving.keyUsage, [SERVER_AUTH]);
  assert.equal(serving.checkHost('localhost'), 'localhost');
  assert.equal(serving.checkIP('127.0.0.1'), '127.0.0.1');
  assert.equal(serving.checkIP('127.0.0.2'), '127.0.0.2');
  assert.equal(serving.checkIP('10.0.0.1'), undefined);
  const admin = cert(p.adminCert);
  assert.ok(admin.checkIssued(ca) && admin.verify(ca.publicKey));
  assert.equal(admin.subject, 'O=system:masters\nCN=admin');
  assert.deepEqual(admin.keyUsage, [CLIENT_AUTH]);
  // Valid from a minute ago (clocks differ) for a year.
  assert.ok(Math.abs(Date.now() - 60_000 - Date.parse(admin.validFrom)) < 10_000);
  assert.ok(Math.abs(Date.now() + 365 * 86_400_000 - Date.parse(admin.validTo)) < 10_000);
  const frontProxy = cert(p.frontProxyClientCert);
  assert.ok(frontProxy.checkIssued(cert(p.frontProxyCaCert)) && frontProxy.verify(cert(p.frontProxyCaCert).publicKey));
  assert.equal(frontProxy.subject, 'CN=front-proxy-client');
  assert.equal(createPrivateKey(readFileSync(p.serviceAccountKey)).asymmetricKeyDetails?.modulusLength, 2048);
  // The certificate signing controller reads the CA with the X.509 library: it takes it.
  const signing = await loadSigningCA(p.caCert, p.caKey);
  assert.equal((await signing.cert()).subject, 'CN=orch-ca');
  assert.equal(signing.notAfter.getTime(), Date.parse(ca.validTo));
});

test('a TLS handshake accepts the serving certificate and the admin client certificate', async () => {
  const p = await ensurePki(tempDir(), '127.0.0.1');
  const server = createServer({ cert: readFileSync(p.servingCert), key: readFileSync(p.servingKey), ca: readFileSync(p.caCert), requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
    res.end(peer.subject.CN);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as AddressInfo;
    const body = await new Promise<string>((resolve, reject) => {
      const req = request({ host: 'localhost', port, ca: readFileSync(p.caCert), cert: readFileSync(p.adminCert), key: readFileSync(p.adminKey), agent: false }, (res) => {
        let b = '';
        res.on('data', (c: Buffer) => (b += c.toString()));
        res.on('end', () => resolve(b));
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(body, 'admin');
  } finally {
    server.close();
  }
});

test('a CA made by the X.509 library still issues certificates that chain to it', async () => {
  // A data directory as earlier versions left it: the CA and its key, made by the library.
  const dir = tempDir();
  const made = await ensurePki(tempDir(), '127.0.0.1');
  const { x509 } = await import('../auth/x509-lib.js');
  const ecdsa = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
  const keys = (await webcrypto.subtle.generateKey(ecdsa, true, ['sign', 'verify'])) as { publicKey: webcrypto.CryptoKey; privateKey: webcrypto.CryptoKey };
  const old = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=orch-ca',
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 3650 * 86_400_000),
    keys,
    signingAlgorithm: ecdsa,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true), await x509.SubjectKeyIdentifierExtension.create(keys.publicKey)],
  });
  mkdirSync(join(dir, 'pki'), { recursive: true });
  writeFileSync(join(dir, 'pki', 'ca.crt'), old.toString('pem') + '\n');
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
  writeFileSync(join(dir, 'pki', 'ca.key'), `-----BEGIN PRIVATE KEY-----\n${pkcs8}\n-----END PRIVATE KEY-----\n`);
  writeFileSync(join(dir, 'pki', 'sa.key'), readFileSync(made.serviceAccountKey));
  const p = await ensurePki(dir, '127.0.0.1');
  const ca = cert(p.caCert);
  assert.equal(ca.fingerprint256, new X509Certificate(old.toString('pem')).fingerprint256, 'the CA is kept');
  const serving = cert(p.servingCert);
  assert.ok(serving.checkIssued(ca) && serving.verify(ca.publicKey));
  // The authority key identifier is the CA's own subject key identifier, as chain building matches them.
  const ski = old.getExtension(x509.SubjectKeyIdentifierExtension)!.keyId;
  const aki = new x509.X509Certificate(readFileSync(p.servingCert, 'utf8')).getExtension(x509.AuthorityKeyIdentifierExtension)!.keyId;
  assert.equal(aki, ski);
});

test('a later start reuses every file, and replaces a serving certificate that misses the bind address', async () => {
  const dir = tempDir();
  const p = await ensurePki(dir, '127.0.0.1');
  const files = [p.caCert, p.caKey, p.servingCert, p.adminCert, p.serviceAccountKey, p.frontProxyClientCert];
  const before = files.map((f) => readFileSync(f, 'utf8'));
  await ensurePki(dir, '127.0.0.1');
  assert.deepEqual(
    files.map((f) => readFileSync(f, 'utf8')),
    before,
  );
  await ensurePki(dir, '127.0.0.3');
  assert.equal(cert(p.servingCert).checkIP('127.0.0.3'), '127.0.0.3');
  assert.ok(cert(p.servingCert).checkIssued(cert(p.caCert)));
  // A missing admin certificate is made again from the same CA.
  unlinkSync(p.adminCert);
  await ensurePki(dir, '127.0.0.3');
  assert.ok(cert(p.adminCert).verify(cert(p.caCert).publicKey));
  assert.equal(readFileSync(p.caCert, 'utf8'), before[0]);
});

test('a service-account key generated before the start is the one written, and only where none exists', async () => {
  const { generateKeyPairSync } = await import('node:crypto');
  const { startPki } = await import('./pki.js');
  const { generateServiceAccountKeyEarly } = await import('./early-start.js');
  const dir = tempDir();
  const given = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const work = startPki(dir, '127.0.0.1', Promise.resolve(given));
  await Promise.all([work.certificates, work.serviceAccountKey]);
  assert.ok(createPrivateKey(readFileSync(work.paths.serviceAccountKey)).equals(given));
  // The entry point begins one only for a data directory without a key, and never for --help.
  assert.equal(generateServiceAccountKeyEarly(['--data-dir', dir]), undefined);
  assert.equal(generateServiceAccountKeyEarly(['--data-dir', tempDir(), '--help']), undefined);
  const early = generateServiceAccountKeyEarly([`--data-dir=${tempDir()}`]);
  assert.equal((await early?.key)?.asymmetricKeyDetails?.modulusLength, 2048);
});
