// The data directory's PKI: a CA, a serving certificate for the addresses clients use, an
// admin client certificate (group system:masters) and the service-account signing key.
// Made once on the first start and reused; a serving certificate that no longer covers the
// bind address, or that is about to expire, is made again from the same CA.
import { createPrivateKey, generateKeyPair, randomBytes, X509Certificate, type KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { derToPem, distinguishedName, issueCertificate, issuerOf, selfIssuer, type Issuer } from '../auth/certificate-builder.js';
import { shortWord } from '../naming/index.js';

// The certificates are built with node:crypto alone (auth/certificate-builder.ts): the
// general X.509 library took longer to load than the first start spent on everything else here.

const DAY = 86_400_000;
const generate = promisify(generateKeyPair);

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

export function pkiPaths(dataDir: string): PkiPaths {
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

async function writeSecret(path: string, text: string): Promise<void> {
  await writeFile(path, text, { mode: 0o600 });
  await chmod(path, 0o600);
}

const privatePem = (key: KeyObject): string => key.export({ type: 'pkcs8', format: 'pem' }).toString();

async function loadOrCreateCA(p: { caCert: string; caKey: string }, cn = `${shortWord()}-ca`): Promise<Issuer> {
  if (existsSync(p.caCert) && existsSync(p.caKey)) {
    return issuerOf(await readFile(p.caCert, 'utf8'), createPrivateKey(await readFile(p.caKey, 'utf8')));
  }
  const { publicKey, privateKey } = await generate('ec', { namedCurve: 'P-256' });
  const subject = distinguishedName(cn);
  const now = Date.now();
  const cert = issueCertificate(
    { serial: randomBytes(16), subject, publicKey, notBefore: new Date(now - 60_000), notAfter: new Date(now + 3650 * DAY), ca: true },
    selfIssuer(subject, privateKey),
  );
  await writeFile(p.caCert, derToPem(cert) + '\n');
  await writeSecret(p.caKey, privatePem(privateKey));
  return issuerOf(cert, privateKey);
}

async function issue(ca: Issuer, certPath: string, keyPath: string, cn: string, opts: { orgs?: string[]; server?: boolean; hosts?: string[] }): Promise<void> {
  const { publicKey, privateKey } = await generate('ec', { namedCurve: 'P-256' });
  const now = Date.now();
  const cert = issueCertificate(
    {
      serial: randomBytes(16),
      subject: distinguishedName(cn, opts.orgs),
      publicKey,
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + 365 * DAY),
      usage: opts.server ? 'server' : 'client',
      ...(opts.hosts ? { hosts: opts.hosts } : {}),
    },
    ca,
  );
  await writeFile(certPath, derToPem(cert) + '\n');
  await writeSecret(keyPath, privatePem(privateKey));
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

/** The PKI being made: its paths at once, its files when the promises resolve. */
export interface PkiWork {
  paths: PkiPaths;
  /** The CAs and certificates, in place. */
  certificates: Promise<void>;
  /**
   * The service-account key, in place. It is RSA, whose generation (a prime search on the
   * thread pool) takes longer than everything else here and the store's creation together:
   * a first start waits for it only where the authenticators read it.
   */
  serviceAccountKey: Promise<void>;
}

/** The service-account key a data directory gets: RSA 2048, as kubeadm makes it. */
export async function generateServiceAccountKey(): Promise<KeyObject> {
  return (await generate('rsa', { modulusLength: 2048, publicExponent: 0x10001 })).privateKey;
}

/**
 * Starts making what is missing; fast when everything exists. Both promises must be awaited.
 * `serviceAccountKey`, a key generation begun before (by the entry point), is the key written
 * when the data directory has none.
 */
export function startPki(dataDir: string, bindAddress: string, serviceAccountKey?: Promise<KeyObject>): PkiWork {
  const paths = pkiPaths(dataDir);
  const dir = mkdir(paths.dir, { recursive: true, mode: 0o700 });
  const saKey = dir.then(async () => {
    if (existsSync(paths.serviceAccountKey)) return;
    await writeSecret(paths.serviceAccountKey, privatePem(await (serviceAccountKey ?? generateServiceAccountKey())));
  });
  const certificates = dir.then(() => ensureCertificates(paths, bindAddress));
  // Awaited by the caller unless something else fails first: that is the failure to report.
  saKey.catch(() => {});
  certificates.catch(() => {});
  return { paths, certificates, serviceAccountKey: saKey };
}

/** Makes what is missing and returns the paths. Fast when everything exists. */
export async function ensurePki(dataDir: string, bindAddress: string): Promise<PkiPaths> {
  const work = startPki(dataDir, bindAddress);
  await Promise.all([work.certificates, work.serviceAccountKey]);
  return work.paths;
}

async function ensureCertificates(p: PkiPaths, bindAddress: string): Promise<void> {
  const hosts = servingHosts(bindAddress);
  const needServing = await needsIssue(p.servingCert, p.servingKey, hosts);
  const needAdmin = await needsIssue(p.adminCert, p.adminKey);
  const needKubeletClient = await needsIssue(p.kubeletClientCert, p.kubeletClientKey);
  if (!existsSync(p.caCert) || needServing || needAdmin || needKubeletClient) {
    const ca = await loadOrCreateCA(p);
    if (needServing) await issue(ca, p.servingCert, p.servingKey, `${shortWord()}-apiserver`, { server: true, hosts });
    if (needAdmin) await issue(ca, p.adminCert, p.adminKey, 'admin', { orgs: ['system:masters'] });
    if (needKubeletClient) await issue(ca, p.kubeletClientCert, p.kubeletClientKey, `${shortWord()}-apiserver-kubelet-client`, { orgs: ['system:masters'] });
  }
  if (!existsSync(p.frontProxyCaCert) || (await needsIssue(p.frontProxyClientCert, p.frontProxyClientKey))) {
    const ca = await loadOrCreateCA({ caCert: p.frontProxyCaCert, caKey: p.frontProxyCaKey }, 'front-proxy-ca');
    await issue(ca, p.frontProxyClientCert, p.frontProxyClientKey, FRONT_PROXY_CLIENT_CN, {});
  }
}


