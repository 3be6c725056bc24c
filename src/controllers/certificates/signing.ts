// csrsigning: issues certificates for approved requests to the built-in signers with the
// cluster signing CA (`--cluster-signing-cert-file`/`--cluster-signing-key-file`). Each
// signer checks subject and usages first; a request it refuses gets a Failed condition
// (reason SignerValidationFailure) and is never signed.
import { readFile } from 'node:fs/promises';
import { webcrypto, X509Certificate } from 'node:crypto';
import type { KubeObject } from '../../apimachinery/types.js';
import { rfc3339 } from '../../apimachinery/time.js';
import type { ApiClient } from '../../client/types.js';
import type { x509 } from '../../auth/x509-lib.js';
import { builtinSigner, type BuiltinSigner } from '../../apis/certificates/signers.js';
import type { ControllerDescriptor } from '../types.js';
import { csrParts, csrResource, hasCondition, parseRequest, startCSRController, type ParsedRequest } from './common.js';
import { group } from '../../naming/index.js';

const NODE_USAGES = ['digital signature', 'key encipherment'];
/** Kubernetes also accepts the set without key encipherment (keys that cannot encipher). */
function usagesMatch(usages: string[], required: string[]): boolean {
  const want = new Set(required);
  const noEncipherment = new Set(required.filter((u) => u !== 'key encipherment'));
  const have = new Set(usages);
  const same = (a: Set<string>): boolean => a.size === have.size && [...a].every((u) => have.has(u));
  return same(want) || same(noEncipherment);
}

const sameOrganizations = (r: ParsedRequest): boolean => r.organizations.length === 1 && r.organizations[0] === 'system:nodes';

/** Why the agent's client signer refuses `r`, or undefined (its rules, in Kubernetes' words and order). */
export function nodeClientProblem(r: ParsedRequest, usages: string[]): string | undefined {
  if (!sameOrganizations(r)) return 'subject organization is not system:nodes';
  if (r.dnsNames.length > 0) return 'DNS subjectAltNames are not allowed';
  if (r.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (r.ipAddresses.length > 0) return 'IP subjectAltNames are not allowed';
  if (r.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!r.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  const required = [...NODE_USAGES, 'client auth'];
  if (!usagesMatch(usages, required)) return `usages did not match [${[...required].sort().join(' ')}]`;
  return undefined;
}

/** Why the agent's serving signer refuses `r`, or undefined. */
export function nodeServingProblem(r: ParsedRequest, usages: string[]): string | undefined {
  if (!sameOrganizations(r)) return 'subject organization is not system:nodes';
  if (r.dnsNames.length === 0 && r.ipAddresses.length === 0) return 'DNS or IP subjectAltName is required';
  if (r.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (r.uris.length > 0) return 'URI subjectAltNames are not allowed';
  const required = [...NODE_USAGES, 'server auth'];
  if (!usagesMatch(usages, required)) return `usages did not match [${[...required].sort().join(' ')}]`;
  if (!r.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  return undefined;
}

/** Why the API server's client signer refuses the usages, or undefined. */
export function apiserverClientProblem(usages: string[]): string | undefined {
  for (const u of usages) if (!['digital signature', 'key encipherment', 'client auth'].includes(u)) return `invalid usage for client certificate: ${u}`;
  if (!usages.includes('client auth')) return 'missing required usage for client certificate: client auth';
  return undefined;
}

export function signerProblem(signer: BuiltinSigner, r: ParsedRequest, usages: string[]): string | undefined {
  switch (signer) {
    case 'apiserver-client':
      return apiserverClientProblem(usages);
    case 'apiserver-client-agent':
      return nodeClientProblem(r, usages);
    case 'agent-serving':
      return nodeServingProblem(r, usages);
    case 'legacy-unknown':
      return undefined;
  }
}

const MIN_DURATION_S = 600;
const BACKDATE_MS = 5 * 60_000;
const SHORT_MS = 8 * 3600_000;

/** The lifetime of an issued certificate: the configured one, shortened by `expirationSeconds` (not below 10 minutes). */
export function certificateDurationSeconds(configured: number, expirationSeconds: number | undefined): number {
  if (expirationSeconds === undefined) return configured;
  if (expirationSeconds > configured) return configured;
  return Math.max(expirationSeconds, MIN_DURATION_S);
}

/**
 * The validity window: backdated 5 minutes for clock skew; a short-lived certificate still
 * ends its duration after now, a long one after its start; never past the CA's own end.
 */
export function validityPeriod(now: Date, durationS: number, caNotAfter: Date): { notBefore: Date; notAfter: Date } {
  const notBefore = new Date(now.getTime() - BACKDATE_MS);
  const ms = durationS * 1000;
  let notAfter = new Date(ms < SHORT_MS ? now.getTime() + ms : notBefore.getTime() + ms);
  if (notAfter.getTime() >= caNotAfter.getTime()) notAfter = caNotAfter;
  if (notBefore.getTime() >= caNotAfter.getTime()) throw new Error(`the signer has expired: NotAfter=${rfc3339(caNotAfter)}`);
  if (now.getTime() >= caNotAfter.getTime()) throw new Error(`refusing to sign a certificate that expired in the past: NotAfter=${rfc3339(caNotAfter)}`);
  return { notBefore, notAfter };
}

type X509 = typeof x509;

/** Loaded on first use: the X.509 library costs ~150 ms of a server's start-up. */
async function loadX509(): Promise<X509> {
  return (await import('../../auth/x509-lib.js')).x509;
}

function keyUsageFlags(x509: X509): Record<string, number> {
  return {
    signing: x509.KeyUsageFlags.digitalSignature,
    'digital signature': x509.KeyUsageFlags.digitalSignature,
    'content commitment': x509.KeyUsageFlags.nonRepudiation,
    'key encipherment': x509.KeyUsageFlags.keyEncipherment,
    'key agreement': x509.KeyUsageFlags.keyAgreement,
    'data encipherment': x509.KeyUsageFlags.dataEncipherment,
    'cert sign': x509.KeyUsageFlags.keyCertSign,
    'crl sign': x509.KeyUsageFlags.cRLSign,
    'encipher only': x509.KeyUsageFlags.encipherOnly,
    'decipher only': x509.KeyUsageFlags.decipherOnly,
  };
}

const EXTENDED_USAGES: Record<string, string> = {
  any: '2.5.29.37.0',
  'server auth': '1.3.6.1.5.5.7.3.1',
  'client auth': '1.3.6.1.5.5.7.3.2',
  'code signing': '1.3.6.1.5.5.7.3.3',
  'email protection': '1.3.6.1.5.5.7.3.4',
  's/mime': '1.3.6.1.5.5.7.3.4',
  'ipsec end system': '1.3.6.1.5.5.7.3.5',
  'ipsec tunnel': '1.3.6.1.5.5.7.3.6',
  'ipsec user': '1.3.6.1.5.5.7.3.7',
  timestamping: '1.3.6.1.5.5.7.3.8',
  'ocsp signing': '1.3.6.1.5.5.7.3.9',
  'microsoft sgc': '1.3.6.1.4.1.311.10.3.3',
  'netscape sgc': '2.16.840.1.113730.4.1',
};

export interface SigningCA {
  /** The CA certificate as the X.509 library reads it, loaded with the library on the first signature. */
  cert(): Promise<InstanceType<typeof x509.X509Certificate>>;
  notAfter: Date;
  key: webcrypto.CryptoKey;
}

/** Hash for a CA key, as Go picks it: SHA-384 for P-384, SHA-512 for P-521, else SHA-256. */
function signingAlgorithm(key: webcrypto.CryptoKey): { name: string; hash: string } {
  const curve = (key.algorithm as { namedCurve?: string }).namedCurve;
  if (key.algorithm.name === 'ECDSA') return { name: 'ECDSA', hash: curve === 'P-384' ? 'SHA-384' : curve === 'P-521' ? 'SHA-512' : 'SHA-256' };
  return { name: key.algorithm.name, hash: 'SHA-256' };
}

/** Web Crypto's names of the curves OpenSSL names. */
const CURVES: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };

/**
 * Loads the signing CA: a PEM certificate and its PKCS#8 private key (ECDSA or RSA). Both are
 * read and checked now, with node:crypto; the X.509 library, which only signing needs, loads
 * with the first certificate signed rather than with every start of the server.
 */
export async function loadSigningCA(certFile: string, keyFile: string): Promise<SigningCA> {
  const pem = await readFile(certFile, 'utf8');
  const checked = new X509Certificate(pem);
  const keyPem = await readFile(keyFile, 'utf8');
  const match = /-----BEGIN PRIVATE KEY-----([\s\S]*?)-----END PRIVATE KEY-----/.exec(keyPem);
  if (!match) throw new Error(`${keyFile}: expected a PEM "PRIVATE KEY" (PKCS#8) block`);
  const der = Buffer.from(match[1]!.replace(/\s+/g, ''), 'base64');
  const publicKey = checked.publicKey;
  const importAlg =
    publicKey.asymmetricKeyType === 'ec'
      ? { name: 'ECDSA', namedCurve: CURVES[publicKey.asymmetricKeyDetails?.namedCurve ?? ''] ?? 'P-256' }
      : { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  const key = await webcrypto.subtle.importKey('pkcs8', der, importAlg, false, ['sign']);
  let cert: Promise<InstanceType<typeof x509.X509Certificate>> | undefined;
  return { cert: () => (cert ??= loadX509().then((lib) => new lib.X509Certificate(pem))), notAfter: new Date(checked.validTo), key };
}

function randomSerial(): string {
  const b = webcrypto.getRandomValues(new Uint8Array(16));
  b[0] = b[0]! & 0x7f;
  return Buffer.from(b).toString('hex');
}

/** Issues the certificate `r` asks for (subject, alternative names, key) with `usages`; PEM. */
export async function issueCertificate(ca: SigningCA, r: ParsedRequest, usages: string[], period: { notBefore: Date; notAfter: Date }): Promise<string> {
  const x509 = await loadX509();
  const caCert = await ca.cert();
  const usageFlags = keyUsageFlags(x509);
  const flags = usages.reduce((f, u) => f | (usageFlags[u] ?? 0), 0);
  const extended = [...new Set(usages.map((u) => EXTENDED_USAGES[u]).filter((u): u is string => u !== undefined))];
  const extensions: InstanceType<typeof x509.Extension>[] = [
    ...(flags ? [new x509.KeyUsagesExtension(flags, true)] : []),
    ...(extended.length > 0 ? [new x509.ExtendedKeyUsageExtension(extended)] : []),
    new x509.BasicConstraintsExtension(false, undefined, true),
    await x509.AuthorityKeyIdentifierExtension.create(caCert),
  ];
  const names = [
    ...r.dnsNames.map((value) => ({ type: 'dns' as const, value })),
    ...r.emailAddresses.map((value) => ({ type: 'email' as const, value })),
    ...r.ipAddresses.map((value) => ({ type: 'ip' as const, value })),
    ...r.uris.map((value) => ({ type: 'url' as const, value })),
  ];
  if (names.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(names));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: r.request.subjectName.toString(),
    issuer: caCert.subject,
    notBefore: period.notBefore,
    notAfter: period.notAfter,
    publicKey: r.request.publicKey,
    signingKey: ca.key,
    signingAlgorithm: signingAlgorithm(ca.key),
    extensions,
  });
  return cert.toString('pem') + '\n';
}

export interface SignerOptions {
  client: ApiClient;
  ca: SigningCA;
  durationSeconds: number;
  now: () => Date;
}

/** One pass over one request: sign it, mark it Failed, or leave it; throws to be retried. */
export async function signIfApproved(opts: SignerOptions, csr: KubeObject): Promise<void> {
  const { spec, status } = csrParts(csr);
  if (status.certificate || !hasCondition(csr, 'Approved') || hasCondition(csr, 'Denied') || hasCondition(csr, 'Failed')) return;
  const signer = builtinSigner(spec.signerName ?? '');
  if (!signer) return;
  let request: ParsedRequest;
  try {
    request = await parseRequest(spec.request ?? '');
  } catch (err) {
    throw new Error(`unable to parse csr ${JSON.stringify(csr.metadata?.name ?? '')}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const usages = spec.usages ?? [];
  const problem = signerProblem(signer, request, usages);
  if (problem !== undefined) {
    const failed = { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: problem, lastUpdateTime: rfc3339(opts.now()) };
    await opts.client.update(csrResource(), '', { ...csr, status: { ...status, conditions: [...(status.conditions ?? []), failed] } }, 'status');
    return;
  }
  const now = opts.now();
  const period = validityPeriod(now, certificateDurationSeconds(opts.durationSeconds, spec.expirationSeconds), opts.ca.notAfter);
  const pem = await issueCertificate(opts.ca, request, usages, period);
  await opts.client.update(csrResource(), '', { ...csr, status: { ...status, certificate: Buffer.from(pem).toString('base64') } }, 'status');
}

/** The descriptor, built when the manager is: the resource it requires is named in the flavor chosen by then. */
export function csrSigningController(): ControllerDescriptor {
  return {
    name: 'csrsigning',
    requires: [{ group: group('certificates'), resource: 'certificatesigningrequests' }],
    async start(ctx) {
      const { clusterSigningCertFile: certFile, clusterSigningKeyFile: keyFile } = ctx.options;
      if (!certFile || !keyFile) {
        // Without a signing key there is nothing to sign with, as kube-controller-manager skips the controller.
        ctx.log('skipping: no --cluster-signing-cert-file and --cluster-signing-key-file were given');
        return { stop: async () => {}, idle: () => true };
      }
      const ca = await loadSigningCA(certFile, keyFile);
      return startCSRController(ctx, (csr) => signIfApproved({ client: ctx.client, ca, durationSeconds: ctx.options.clusterSigningDurationSeconds, now: () => ctx.clock.now() }, csr));
    },
  };
}
