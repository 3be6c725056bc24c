// X.509 v3 certificates built and signed with node:crypto alone (ECDSA P-256, SHA-256), for
// the server's own PKI: its CA, serving and client certificates. The general X.509 library
// costs more to load than the whole first start spends on its certificates, and these need
// only a few fields and extensions, written here in DER (RFC 5280) as Go's crypto/x509,
// which kubectl and client-go parse them with, expects them: minimal integers, UTCTime
// before 2050, the issuer copied byte for byte from the issuer's subject.
import { createHash, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { derChildren, readDerElement } from '../apimachinery/der.js';

// --- DER -------------------------------------------------------------------------------

function tlv(tag: number, body: Uint8Array): Buffer {
  const n = body.byteLength;
  let head: number[];
  if (n < 0x80) head = [tag, n];
  else {
    const len: number[] = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) len.unshift(v & 0xff);
    head = [tag, 0x80 | len.length, ...len];
  }
  return Buffer.concat([Buffer.from(head), body]);
}

const sequence = (...parts: Uint8Array[]): Buffer => tlv(0x30, Buffer.concat(parts));
const set = (...parts: Uint8Array[]): Buffer => tlv(0x31, Buffer.concat(parts));
const octetString = (b: Uint8Array): Buffer => tlv(0x04, b);
const bitString = (b: Uint8Array, unusedBits = 0): Buffer => tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), b]));
const utf8String = (s: string): Buffer => tlv(0x0c, Buffer.from(s, 'utf8'));
const explicit = (n: number, inner: Uint8Array): Buffer => tlv(0xa0 | n, inner);
const TRUE = Buffer.from([0x01, 0x01, 0xff]);

/** A non-negative INTEGER from big-endian bytes, in its minimal form. */
function unsignedInteger(bytes: Uint8Array): Buffer {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  const body = Buffer.from(bytes.subarray(i));
  return tlv(0x02, body[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), body]) : body);
}

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const out = [a! * 40 + b!];
  for (const arc of rest) {
    const bytes = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) bytes.unshift((v & 0x7f) | 0x80);
    out.push(...bytes);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280 4.1.2.5), to the second, in UTC. */
function time(d: Date): Buffer {
  const iso = d.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = iso.slice(0, 19).replace(/[-:T]/g, '') + 'Z';
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), 'ascii')) : tlv(0x18, Buffer.from(digits, 'ascii'));
}

// --- certificates -----------------------------------------------------------------------

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

/** A distinguished name: the organizations, then the common name (as Kubernetes reads users and groups). */
export function distinguishedName(commonName: string, organizations: string[] = []): Buffer {
  const attr = (type: string, value: string): Buffer => set(sequence(oid(type), utf8String(value)));
  return sequence(...organizations.map((o) => attr(OID.organization, o)), attr(OID.commonName, commonName));
}

/** The key identifier of a public key: SHA-1 of its subjectPublicKey bits (RFC 5280 4.2.1.2, method 1). */
export function keyIdentifier(publicKey: KeyObject): Buffer {
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const [, bits] = derChildren(spki, readDerElement(spki, 0));
  if (!bits || bits.tag !== 0x03) throw new Error('unexpected public key encoding');
  return createHash('sha1').update(spki.subarray(bits.contents + 1, bits.end)).digest();
}

/** What a certificate to be issued by this signer needs of it. */
export interface Issuer {
  /** The DER of the issuer's subject name, which becomes the certificate's issuer as it is. */
  subject: Buffer;
  /** The issuer's subject key identifier, for the authority key identifier; none when it has none. */
  keyId?: Buffer;
  privateKey: KeyObject;
}

/** The issuer of a certificate in PEM or DER: its subject name and key identifier, as encoded in it. */
export function issuerOf(cert: string | Uint8Array, privateKey: KeyObject): Issuer {
  const der = typeof cert === 'string' ? pemToDer(cert, 'CERTIFICATE') : cert;
  const certificate = readDerElement(der, 0);
  const [tbs] = derChildren(der, certificate);
  if (!tbs) throw new Error('not a certificate');
  const fields = derChildren(der, tbs);
  // version [0] is present in v3 certificates; serial, signature, issuer, validity, subject follow.
  const at = fields[0]?.tag === 0xa0 ? 1 : 0;
  const subject = fields[at + 4];
  if (!subject || subject.tag !== 0x30) throw new Error('not a certificate');
  let keyId: Buffer | undefined;
  const extensions = fields.find((f) => f.tag === 0xa3);
  if (extensions) {
    const [list] = derChildren(der, extensions);
    for (const ext of list ? derChildren(der, list) : []) {
      const parts = derChildren(der, ext);
      const id = parts[0];
      if (!id || !Buffer.from(der.subarray(id.at, id.end)).equals(oid(OID.subjectKeyIdentifier))) continue;
      const value = parts[parts.length - 1]!;
      const inner = readDerElement(der, value.contents);
      keyId = Buffer.from(der.subarray(inner.contents, inner.end));
    }
  }
  return { subject: Buffer.from(der.subarray(subject.at, subject.end)), ...(keyId ? { keyId } : {}), privateKey };
}

export interface CertificateRequest {
  /** 16 random bytes make a serial number; the top bit is cleared to keep it positive. */
  serial: Uint8Array;
  subject: Buffer;
  publicKey: KeyObject;
  notBefore: Date;
  notAfter: Date;
  /** A CA: basic constraints cA, key usage for signing certificates and CRLs. */
  ca?: boolean;
  /** For a leaf: serverAuth or clientAuth. */
  usage?: 'server' | 'client';
  /** DNS names and IP addresses, for the subject alternative name. */
  hosts?: string[];
}

function extension(id: string, critical: boolean, value: Uint8Array): Buffer {
  return sequence(oid(id), ...(critical ? [TRUE] : []), octetString(value));
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  // IPv6: expand `::`, then eight groups of two bytes.
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, undefined];
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

/** The issuer of a self-signed certificate for `subject`. */
export function selfIssuer(subject: Buffer, privateKey: KeyObject): Issuer {
  return { subject, keyId: keyIdentifier(createPublicKey(privateKey)), privateKey };
}

/** Builds and signs a certificate (ECDSA with SHA-256 by the issuer's P-256 key); returns its DER. */
export function issueCertificate(req: CertificateRequest, signer: Issuer): Buffer {
  const serial = Buffer.from(req.serial);
  serial[0] = serial[0]! & 0x7f;
  const extensions: Buffer[] = [];
  if (req.ca) {
    extensions.push(extension(OID.basicConstraints, true, sequence(TRUE)));
    // digitalSignature (bit 0), keyCertSign (5), cRLSign (6): 1000 0110, the last bit unused.
    extensions.push(extension(OID.keyUsage, true, bitString(Buffer.from([0x86]), 1)));
    extensions.push(extension(OID.subjectKeyIdentifier, false, octetString(keyIdentifier(req.publicKey))));
  } else {
    extensions.push(extension(OID.basicConstraints, true, sequence()));
    // digitalSignature (bit 0), keyEncipherment (2): 1010 0000, five bits unused.
    extensions.push(extension(OID.keyUsage, true, bitString(Buffer.from([0xa0]), 5)));
    if (req.usage) extensions.push(extension(OID.extKeyUsage, false, sequence(oid(req.usage === 'server' ? OID.serverAuth : OID.clientAuth))));
    if (signer.keyId) extensions.push(extension(OID.authorityKeyIdentifier, false, sequence(tlv(0x80, signer.keyId))));
    if (req.hosts && req.hosts.length > 0) {
      const names = req.hosts.map((h) => (isIP(h) ? tlv(0x87, ipBytes(h)) : tlv(0x82, Buffer.from(h, 'ascii'))));
      extensions.push(extension(OID.subjectAltName, false, sequence(...names)));
    }
  }
  const algorithm = sequence(oid(OID.ecdsaWithSha256));
  const tbs = sequence(
    explicit(0, unsignedInteger(Buffer.from([2]))),
    unsignedInteger(serial),
    algorithm,
    signer.subject,
    sequence(time(req.notBefore), time(req.notAfter)),
    req.subject,
    req.publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(...extensions)),
  );
  const signature = sign('sha256', tbs, { key: signer.privateKey, dsaEncoding: 'der' });
  return sequence(tbs, algorithm, bitString(signature));
}

export function derToPem(der: Uint8Array, label = 'CERTIFICATE'): string {
  const b64 = Buffer.from(der).toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

export function pemToDer(pem: string, label: string): Buffer {
  const m = new RegExp(`-----BEGIN ${label}-----([\\s\\S]*?)-----END ${label}-----`).exec(pem);
  if (!m) throw new Error(`expected a PEM "${label}" block`);
  return Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64');
}
