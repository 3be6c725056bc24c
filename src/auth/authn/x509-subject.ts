// Reads the subject's common name and organizations straight from a certificate's DER.
// Node's X509Certificate verifies chains but only renders the subject as escaped text, and
// a full X.509 library costs a noticeable part of start-up; the Name structure is small
// enough to walk directly.

interface Tlv {
  tag: number;
  /** First byte of the contents. */
  start: number;
  /** One past the last byte of the contents. */
  end: number;
}

function readTlv(der: Uint8Array, pos: number, limit: number): Tlv {
  if (pos + 2 > limit) throw new Error('truncated DER');
  const tag = der[pos]!;
  let length = der[pos + 1]!;
  let p = pos + 2;
  if (length & 0x80) {
    const n = length & 0x7f;
    if (n === 0 || n > 4 || p + n > limit) throw new Error('unsupported DER length');
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + der[p++]!;
  }
  if (p + length > limit) throw new Error('truncated DER');
  return { tag, start: p, end: p + length };
}

function children(der: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let p = parent.start; p < parent.end; ) {
    const t = readTlv(der, p, parent.end);
    out.push(t);
    p = t.end;
  }
  return out;
}

const SEQUENCE = 0x30;
const SET = 0x31;
const OID = 0x06;
// 2.5.4.3 commonName and 2.5.4.10 organizationName, DER-encoded.
const OID_CN = '550403';
const OID_O = '55040a';

function hex(der: Uint8Array, t: Tlv): string {
  return Buffer.from(der.subarray(t.start, t.end)).toString('hex');
}

function directoryString(der: Uint8Array, t: Tlv): string {
  const bytes = Buffer.from(der.subarray(t.start, t.end));
  switch (t.tag) {
    case 0x1e: // BMPString: UTF-16 big-endian
      return Buffer.from(bytes).swap16().toString('utf16le');
    case 0x14: // TeletexString, read as Latin-1 as most implementations do
      return bytes.toString('latin1');
    default: // UTF8String, PrintableString, IA5String
      return bytes.toString('utf8');
  }
}

interface CertificateSubject {
  commonName: string;
  organizations: string[];
}

/** The subject's CN (the first one) and every O, in order. Throws on malformed DER. */
export function certificateSubject(der: Uint8Array): CertificateSubject {
  const cert = readTlv(der, 0, der.length);
  if (cert.tag !== SEQUENCE) throw new Error('not a certificate');
  const tbs = children(der, cert)[0];
  if (!tbs || tbs.tag !== SEQUENCE) throw new Error('not a certificate');
  const fields = children(der, tbs);
  // An explicit [0] version comes first on v2/v3 certificates; then serial, signature
  // algorithm, issuer, validity, subject.
  const subject = fields[(fields[0]?.tag === 0xa0 ? 1 : 0) + 4];
  if (!subject || subject.tag !== SEQUENCE) throw new Error('certificate has no subject');
  const result: CertificateSubject = { commonName: '', organizations: [] };
  let haveCn = false;
  for (const rdn of children(der, subject)) {
    if (rdn.tag !== SET) continue;
    for (const atv of children(der, rdn)) {
      const [type, value] = children(der, atv);
      if (!type || !value || type.tag !== OID) continue;
      const oid = hex(der, type);
      if (oid === OID_CN && !haveCn) {
        result.commonName = directoryString(der, value);
        haveCn = true;
      } else if (oid === OID_O) result.organizations.push(directoryString(der, value));
    }
  }
  return result;
}
