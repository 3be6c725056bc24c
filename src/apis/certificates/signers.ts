// The built-in signers' names, which differ between the flavors, and the PEM and DER reading
// the certificate rules share (requests in `spec.request`, certificates in `status.certificate`).
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { flavor, longDomain } from '../../naming/index.js';
import { derChildren, readDerElement, type DerElement } from '../../apimachinery/der.js';

/** The built-in signers by their neutral role. */
export type BuiltinSigner = 'apiserver-client' | 'apiserver-client-agent' | 'agent-serving' | 'legacy-unknown';

const KUBERNETES_PATHS: Record<BuiltinSigner, string> = {
  'apiserver-client': 'kube-apiserver-client',
  'apiserver-client-agent': 'kube-apiserver-client-kubelet',
  'agent-serving': 'kubelet-serving',
  'legacy-unknown': 'legacy-unknown',
};

/** `orch.io/apiserver-client-agent` / `kubernetes.io/kube-apiserver-client-kubelet`, ... */
export function signerName(signer: BuiltinSigner): string {
  return `${longDomain()}/${flavor() === 'orch' ? signer : KUBERNETES_PATHS[signer]}`;
}

/** Which built-in signer `name` is, if any. */
export function builtinSigner(name: string): BuiltinSigner | undefined {
  return (Object.keys(KUBERNETES_PATHS) as BuiltinSigner[]).find((s) => signerName(s) === name);
}

export interface PemBlock {
  type: string;
  headers: Record<string, string>;
  der: Uint8Array;
}

/** The PEM blocks of `text` in order; text outside blocks is ignored, as Go's pem.Decode does. */
export function pemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  const re = /-----BEGIN ([^\n-]*)-----\r?\n([\s\S]*?)-----END \1-----/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const headers: Record<string, string> = {};
    // RFC 1421 headers (`Key: value` lines, then a blank line) sit before the base64 body.
    const lines = m[2]!.split(/\r?\n/);
    while (lines.length > 0 && lines[0]!.includes(':')) {
      const line = lines.shift()!;
      const i = line.indexOf(':');
      headers[line.slice(0, i).trim()] = line.slice(i + 1).trim();
    }
    const body = lines.join('');
    const b64 = body.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) continue;
    out.push({ type: m[1]!, headers, der: new Uint8Array(Buffer.from(b64, 'base64')) });
  }
  return out;
}

/** Whether `der` is one or more complete DER SEQUENCEs (the outer shape of certificates). */
export function isDerSequences(der: Uint8Array): boolean {
  let at = 0;
  if (der.length === 0) return false;
  while (at < der.length) {
    if (der[at] !== 0x30 || at + 2 > der.length) return false;
    let length = der[at + 1]!;
    let start = at + 2;
    if (length & 0x80) {
      const n = length & 0x7f;
      if (n === 0 || n > 4 || start + n > der.length) return false;
      length = 0;
      for (let i = 0; i < n; i++) length = length * 256 + der[start + i]!;
      start += n;
    }
    if (start + length > der.length) return false;
    at = start + length;
  }
  return true;
}

/** The bytes of a base64 field (`spec.request`, `status.certificate`) as text. */
export function decodeBytesField(value: unknown): string {
  return typeof value === 'string' ? Buffer.from(value, 'base64').toString('latin1') : '';
}

/** Signature algorithms by the hex of their OID content, with the hash to verify with. */
const SIGNATURE_ALGORITHMS: Record<string, string | null> = {
  '2a8648ce3d040302': 'sha256', // ecdsa-with-SHA256
  '2a8648ce3d040303': 'sha384',
  '2a8648ce3d040304': 'sha512',
  '2a864886f70d01010b': 'sha256', // sha256WithRSAEncryption
  '2a864886f70d01010c': 'sha384',
  '2a864886f70d01010d': 'sha512',
  '2b6570': null, // Ed25519 signs the message itself
};

/**
 * Why a DER PKCS#10 request's self-signature does not verify, or undefined: the request
 * must prove its maker holds the key, in Go's x509 words.
 */
export function requestSignatureProblem(der: Uint8Array): string | undefined {
  let info: DerElement, algorithm: DerElement, signature: DerElement, spki: DerElement;
  try {
    const top = readDerElement(der, 0);
    [info, algorithm, signature] = derChildren(der, top) as [DerElement, DerElement, DerElement];
    spki = derChildren(der, info)[2]!;
    if (top.tag !== 0x30 || info.tag !== 0x30 || algorithm.tag !== 0x30 || signature.tag !== 0x03 || spki.tag !== 0x30) throw new Error('tags');
  } catch {
    return "asn1: structure error: tags don't match";
  }
  const oid = derChildren(der, algorithm)[0];
  const hash = oid ? SIGNATURE_ALGORITHMS[Buffer.from(der.subarray(oid.contents, oid.end)).toString('hex')] : undefined;
  if (hash === undefined) return 'x509: cannot verify signature: algorithm unimplemented';
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(der.subarray(spki.at, spki.end)), format: 'der', type: 'spki' });
  } catch {
    return 'x509: unsupported elliptic curve';
  }
  // A BIT STRING's first content byte counts the unused bits.
  const sig = der.subarray(signature.contents + 1, signature.end);
  let ok = false;
  try {
    ok = verify(hash, der.subarray(info.at, info.end), key, sig);
  } catch {
    ok = false;
  }
  if (ok) return undefined;
  if (key.asymmetricKeyType === 'ec') return 'x509: ECDSA verification failure';
  if (key.asymmetricKeyType === 'ed25519') return 'x509: Ed25519 verification failure';
  return 'crypto/rsa: verification error';
}
