// The data directory's PKI: a CA, a serving certificate for the addresses clients use, an
// admin client certificate (group system:masters) and the service-account signing key.
// Made once on the first start and reused; a serving certificate that no longer covers the
// bind address, or that is about to expire, is made again from the same CA.
import { webcrypto, X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { x509 as X509Lib } from '../auth/x509-lib.js';
import { shortWord } from '../naming/index.js';

// The X.509 library is loaded only when something must be issued: on later starts the
// files exist and it would cost a noticeable part of start-up for nothing.
type X509 = typeof X509Lib;

type KeyPair = { publicKey: webcrypto.CryptoKey; privateKey: webcrypto.CryptoKey };

const ecdsa = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;

export interface PkiPaths {
  dir: string;
  caCert: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
  adminCert: string;
  adminKey: string;
  serviceAccountKey: string;
  /** The client certificate the server presents to node agents (kubeadm's apiserver-kubelet-client). */
  kubeletClientCert: string;
  kubeletClientKey: string;
  /** The front-proxy CA (kubeadm's layout): it signs the client certificate aggregated API servers trust. */
  frontProxyCaCert: string;
  frontProxyCaKey: string;
  /** The client certificate requests to aggregated API servers are sent with (CN front-proxy-client). */
  frontProxyClientCert: string;
  frontProxyClientKey: string;
}

/** The CommonName of the front-proxy client certificate, as kubeadm names it. */
export const FRONT_PROXY_CLIENT_CN = 'front-proxy-client';

function pkiPaths(dataDir: string): PkiPaths {
  const dir = join(dataDir, 'pki');
  return {
    dir,
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    servingCert: join(dir, 'apiserver.crt'),
    servingKey: join(dir, 'apiserver.key'),
    adminCert: join(dir, 'admin.crt'),
    adminKey: join(dir, 'admin.key'),
    serviceAccountKey: join(dir, 'sa.key'),
    kubeletClientCert: join(dir, 'apiserver-kubelet-client.crt'),
    kubeletClientKey: join(dir, 'apiserver-kubelet-client.key'),
    frontProxyCaCert: join(dir, 'front-proxy-ca.crt'),
    frontProxyCaKey: join(dir, 'front-proxy-ca.key'),
    frontProxyClientCert: join(dir, 'front-proxy-client.crt'),
    frontProxyClientKey: join(dir, 'front-proxy-client.key'),
  };
}

function pemKey(pkcs8: ArrayBuffer): string {
  const b64 = Buffer.from(pkcs8).toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN PRIVATE KEY-----\n${b64}\n-----END PRIVATE KEY-----\n`;
}

async function importEcKey(pem: string): Promise<webcrypto.CryptoKey> {
  const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  return webcrypto.subtle.importKey('pkcs8', der, ecdsa, true, ['sign']);
}

async function writeSecret(path: string, text: string): Promise<void> {
  await writeFile(path, text, { mode: 0o600 });
  await chmod(path, 0o600);
}

function dn(cn: string, orgs: string[] = []): string {
  const esc = (v: string): string => v.replace(/([,+"\\<>;=])/g, '\\$1');
  return [...orgs.map((o) => `O=${esc(o)}`), `CN=${esc(cn)}`].join(', ');
}

interface CA {
  cert: InstanceType<X509['X509Certificate']>;
  key: webcrypto.CryptoKey;
}

async function loadOrCreateCA(x509: X509, p: { caCert: string; caKey: string }, cn = `${shortWord()}-ca`): Promise<CA> {
  if (existsSync(p.caCert) && existsSync(p.caKey)) {
    const cert = new x509.X509Certificate(await readFile(p.caCert, 'utf8'));
    return { cert, key: await importEcKey(await readFile(p.caKey, 'utf8')) };
  }
  const keys = (await webcrypto.subtle.generateKey(ecdsa, true, ['sign', 'verify'])) as KeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: dn(cn),
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 3650 * DAY),
    keys,
    signingAlgorithm: ecdsa,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  await writeFile(p.caCert, cert.toString('pem') + '\n');
  await writeSecret(p.caKey, pemKey(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)));
  return { cert, key: keys.privateKey };
}

function randomSerial(): string {
  const b = webcrypto.getRandomValues(new Uint8Array(16));
  b[0] = b[0]! & 0x7f;
  return Buffer.from(b).toString('hex');
}

async function issue(x509: X509, ca: CA, certPath: string, keyPath: string, cn: string, opts: { orgs?: string[]; server?: boolean; hosts?: string[] }): Promise<void> {
  const keys = (await webcrypto.subtle.generateKey(ecdsa, true, ['sign', 'verify'])) as KeyPair;
  const now = Date.now();
  const extensions: InstanceType<X509['Extension']>[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension([opts.server ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
    await x509.AuthorityKeyIdentifierExtension.create(ca.cert),
  ];
  if (opts.hosts && opts.hosts.length > 0) {
    extensions.push(new x509.SubjectAlternativeNameExtension(opts.hosts.map((h) => (isIP(h) ? { type: 'ip' as const, value: h } : { type: 'dns' as const, value: h }))));
  }
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: dn(cn, opts.orgs),
    issuer: ca.cert.subject,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 365 * DAY),
    publicKey: keys.publicKey,
    signingKey: ca.key,
    signingAlgorithm: ecdsa,
    extensions,
  });
  await writeFile(certPath, cert.toString('pem') + '\n');
  await writeSecret(keyPath, pemKey(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)));
}

/** Whether a certificate file is missing, expires within 30 days, or misses one of the hosts. */
async function needsIssue(certPath: string, keyPath: string, hosts: string[] = []): Promise<boolean> {
  if (!existsSync(certPath) || !existsSync(keyPath)) return true;
  try {
    const cert = new X509Certificate(await readFile(certPath));
    if (new Date(cert.validTo).getTime() - Date.now() < 30 * DAY) return true;
    return hosts.some((h) => (isIP(h) ? cert.checkIP(h) === undefined : cert.checkHost(h) === undefined));
  } catch {
    return true;
  }
}

/** The hosts the serving certificate covers: localhost, 127.0.0.1 and the bind address. */
function servingHosts(bindAddress: string): string[] {
  const hosts = ['localhost', '127.0.0.1'];
  if (bindAddress && bindAddress !== '0.0.0.0' && bindAddress !== '::' && !hosts.includes(bindAddress)) hosts.push(bindAddress);
  return hosts;
}

/** Makes what is missing and returns the paths. Fast when everything exists. */
export async function ensurePki(dataDir: string, bindAddress: string): Promise<PkiPaths> {
  const p = pkiPaths(dataDir);
  await mkdir(p.dir, { recursive: true, mode: 0o700 });
  // The service-account key is RSA, whose generation (a prime search on the thread pool)
  // takes as long as everything else here together: it runs beside the certificates.
  const saKey = existsSync(p.serviceAccountKey) ? undefined : writeServiceAccountKey(p.serviceAccountKey);
  // Awaited below whatever happens before, so that a failure of it is never left unhandled.
  saKey?.catch(() => {});
  const hosts = servingHosts(bindAddress);
  const needServing = await needsIssue(p.servingCert, p.servingKey, hosts);
  const needAdmin = await needsIssue(p.adminCert, p.adminKey);
  const needKubeletClient = await needsIssue(p.kubeletClientCert, p.kubeletClientKey);
  if (!existsSync(p.caCert) || needServing || needAdmin || needKubeletClient) {
    const { x509 } = await import('../auth/x509-lib.js');
    const ca = await loadOrCreateCA(x509, p);
    if (needServing) await issue(x509, ca, p.servingCert, p.servingKey, `${shortWord()}-apiserver`, { server: true, hosts });
    if (needAdmin) await issue(x509, ca, p.adminCert, p.adminKey, 'admin', { orgs: ['system:masters'] });
    if (needKubeletClient) await issue(x509, ca, p.kubeletClientCert, p.kubeletClientKey, `${shortWord()}-apiserver-kubelet-client`, { orgs: ['system:masters'] });
  }
  if (!existsSync(p.frontProxyCaCert) || (await needsIssue(p.frontProxyClientCert, p.frontProxyClientKey))) {
    const { x509 } = await import('../auth/x509-lib.js');
    const ca = await loadOrCreateCA(x509, { caCert: p.frontProxyCaCert, caKey: p.frontProxyCaKey }, 'front-proxy-ca');
    await issue(x509, ca, p.frontProxyClientCert, p.frontProxyClientKey, FRONT_PROXY_CLIENT_CN, {});
  }
  await saKey;
  return p;
}

async function writeServiceAccountKey(path: string): Promise<void> {
  const keys = (await webcrypto.subtle.generateKey(
    { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['sign', 'verify'],
  )) as KeyPair;
  await writeSecret(path, pemKey(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)));
}

