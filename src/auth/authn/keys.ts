// Keys for service account tokens: PEM files holding private keys, public keys or
// certificates, and the key ids and JWKs published in the issuer's JWKS document.
import { X509Certificate, createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';

const BLOCK = /-----BEGIN ([A-Z ]+)-----[\s\S]+?-----END \1-----/g;

/** The public keys of every PEM block of a file (private keys yield their public half). */
export function publicKeysFromPem(pem: string): KeyObject[] {
  const keys: KeyObject[] = [];
  for (const m of pem.matchAll(BLOCK)) {
    const [block, label] = m as unknown as [string, string];
    if (label === 'CERTIFICATE') keys.push(new X509Certificate(block).publicKey);
    else if (label.endsWith('PRIVATE KEY')) keys.push(createPublicKey(createPrivateKey(block)));
    else if (label.endsWith('PUBLIC KEY')) keys.push(createPublicKey(block));
  }
  return keys;
}

/** The first private key of a PEM file. */
export function privateKeyFromPem(pem: string): KeyObject {
  for (const m of pem.matchAll(BLOCK)) {
    const [block, label] = m as unknown as [string, string];
    if (label.endsWith('PRIVATE KEY')) return createPrivateKey(block);
  }
  throw new Error('no private key found');
}

export async function readPublicKeys(path: string): Promise<KeyObject[]> {
  const keys = publicKeysFromPem(await readFile(path, 'utf8'));
  if (keys.length === 0) throw new Error(`no public keys found in ${path}`);
  return keys;
}

/** RS256 for RSA keys; ES256/384/512 by curve for EC keys. */
export function signingAlgorithm(key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1' || curve === 'P-256') return 'ES256';
    if (curve === 'secp384r1' || curve === 'P-384') return 'ES384';
    if (curve === 'secp521r1' || curve === 'P-521') return 'ES512';
  }
  throw new Error(`unsupported service account key type ${key.asymmetricKeyType ?? 'unknown'}`);
}

/** The key id: base64url SHA-256 of the public key's DER (SubjectPublicKeyInfo). */
export function keyId(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256').update(pub.export({ type: 'spki', format: 'der' })).digest('base64url');
}

export function publicJwk(publicKey: KeyObject): Record<string, unknown> {
  const jwk = publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
  return { use: 'sig', ...jwk, kid: keyId(publicKey), alg: signingAlgorithm(publicKey) };
}
