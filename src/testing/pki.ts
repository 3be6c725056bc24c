// Certificates for tests: small CAs and leaf certificates made with @peculiar/x509.
import { webcrypto } from 'node:crypto';
import { x509 } from '../auth/x509-lib.js';

type KeyPair = { publicKey: webcrypto.CryptoKey; privateKey: webcrypto.CryptoKey };

const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface TestCert {
  cert: x509.X509Certificate;
  keys: KeyPair;
  certPem: string;
  keyPem: string;
  der: Uint8Array;
}

async function finish(cert: x509.X509Certificate, keys: KeyPair): Promise<TestCert> {
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  const b64 = Buffer.from(pkcs8).toString('base64').replace(/(.{64})/g, '$1\n');
  return {
    cert,
    keys,
    certPem: cert.toString('pem'),
    keyPem: `-----BEGIN PRIVATE KEY-----\n${b64}\n-----END PRIVATE KEY-----\n`,
    der: new Uint8Array(cert.rawData),
  };
}

function dn(cn: string, orgs: string[] = []): string {
  const esc = (v: string) => v.replace(/([,+"\\<>;=])/g, '\\$1');
  return [`CN=${esc(cn)}`, ...orgs.map((o) => `O=${esc(o)}`)].join(', ');
}

export async function createCA(cn: string, opts: { issuer?: TestCert; notAfter?: Date } = {}): Promise<TestCert> {
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as KeyPair;
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = opts.notAfter ?? new Date(Date.now() + 86_400_000);
  const extensions = [
    new x509.BasicConstraintsExtension(true, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
  ];
  const cert = opts.issuer
    ? await x509.X509CertificateGenerator.create({
        subject: dn(cn),
        issuer: opts.issuer.cert.subject,
        notBefore,
        notAfter,
        publicKey: keys.publicKey,
        signingKey: opts.issuer.keys.privateKey,
        signingAlgorithm: alg,
        extensions,
      })
    : await x509.X509CertificateGenerator.createSelfSigned({ name: dn(cn), notBefore, notAfter, keys, signingAlgorithm: alg, extensions });
  return finish(cert, keys);
}

export interface LeafOptions {
  orgs?: string[];
  /** `client` (default), `server`, or `both`. */
  usage?: 'client' | 'server' | 'both';
  dnsNames?: string[];
  ips?: string[];
  notBefore?: Date;
  notAfter?: Date;
}

export async function issueCert(ca: TestCert, cn: string, opts: LeafOptions = {}): Promise<TestCert> {
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as KeyPair;
  const usage = opts.usage ?? 'client';
  const eku: string[] = [];
  if (usage !== 'server') eku.push(x509.ExtendedKeyUsage.clientAuth);
  if (usage !== 'client') eku.push(x509.ExtendedKeyUsage.serverAuth);
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension(eku),
  ];
  const names = [...(opts.dnsNames ?? []).map((v) => ({ type: 'dns' as const, value: v })), ...(opts.ips ?? []).map((v) => ({ type: 'ip' as const, value: v }))];
  if (names.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(names));
  const cert = await x509.X509CertificateGenerator.create({
    subject: dn(cn, opts.orgs),
    issuer: ca.cert.subject,
    notBefore: opts.notBefore ?? new Date(Date.now() - 60_000),
    notAfter: opts.notAfter ?? new Date(Date.now() + 86_400_000),
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: alg,
    extensions,
  });
  return finish(cert, keys);
}
