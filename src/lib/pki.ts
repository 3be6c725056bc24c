// Certificates for embedded servers. Making a CA and keys costs far more than starting a
// memory server, so the servers of one process share one PKI directory per naming flavor
// (the CA's name carries the flavor's word), made on first use and removed at exit. Client
// certificates for any user, and serving certificates for webhooks, are issued from its CA.
import { webcrypto } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensurePki, type PkiPaths } from '../cli/pki.js';
import type { Flavor } from '../naming/index.js';

type KeyPair = { publicKey: webcrypto.CryptoKey; privateKey: webcrypto.CryptoKey };

const ecdsa = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;

const shared = new Map<string, Promise<string>>();

/** A temporary directory removed when the process exits. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The process's PKI directory for a flavor and bind address, made once. */
export function sharedPkiDir(flavor: Flavor, host: string): Promise<string> {
  const key = `${flavor} ${host}`;
  let dir = shared.get(key);
  if (!dir) {
    const d = tempDir('orch-pki-');
    dir = ensurePki(d, host).then(() => d);
    // A failed attempt is not cached: the next server tries again.
    dir.catch(() => shared.delete(key));
    shared.set(key, dir);
  }
  return dir;
}

export interface IssuedCert {
  certPem: string;
  keyPem: string;
}

function pemKey(pkcs8: ArrayBuffer): string {
  const b64 = Buffer.from(pkcs8).toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN PRIVATE KEY-----\n${b64}\n-----END PRIVATE KEY-----\n`;
}

function dn(cn: string, orgs: string[]): string {
  const esc = (v: string): string => v.replace(/([,+"\\<>;=])/g, '\\$1');
  return [...orgs.map((o) => `O=${esc(o)}`), `CN=${esc(cn)}`].join(', ');
}

/**
 * A certificate from the server's CA: a client certificate (CN the user, O the groups, as
 * the x509 authenticator reads them) or a serving one for `hosts`.
 */
export async function issueFromCA(pki: PkiPaths, cn: string, opts: { groups?: string[]; hosts?: string[] } = {}): Promise<IssuedCert> {
  const { x509 } = await import('../auth/x509-lib.js');
  const caCert = new x509.X509Certificate(await readFile(pki.caCert, 'utf8'));
  const caDer = Buffer.from((await readFile(pki.caKey, 'utf8')).replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  const caKey = await webcrypto.subtle.importKey('pkcs8', caDer, ecdsa, false, ['sign']);
  const keys = (await webcrypto.subtle.generateKey(ecdsa, true, ['sign', 'verify'])) as KeyPair;
  const serving = opts.hosts !== undefined;
  const extensions: InstanceType<typeof x509.Extension>[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension([serving ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
  ];
  if (serving) {
    const ip = (h: string): boolean => /^[\d.]+$/.test(h) || h.includes(':');
    extensions.push(new x509.SubjectAlternativeNameExtension((opts.hosts ?? []).map((h) => ({ type: ip(h) ? ('ip' as const) : ('dns' as const), value: h }))));
  }
  const serial = webcrypto.getRandomValues(new Uint8Array(16));
  serial[0] = serial[0]! & 0x7f;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: Buffer.from(serial).toString('hex'),
    subject: dn(cn, opts.groups ?? []),
    issuer: caCert.subject,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 365 * DAY),
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: ecdsa,
    extensions,
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: pemKey(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)) };
}
