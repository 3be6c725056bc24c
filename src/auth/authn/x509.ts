// Client certificate authentication: the TLS listener asks for a certificate without
// verifying it, so the chain is verified here against the configured CA bundle(s).
import { X509Certificate } from 'node:crypto';
import { unauthorized } from '../../apimachinery/errors.js';
import { certificateSubject } from './x509-subject.js';
import type { AuthenticationRequest, AuthenticationResult, Authenticator } from '../types.js';

const OID_CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const OID_ANY_EKU = '2.5.29.37.0';

/** Parses every certificate of a PEM bundle. Throws on a bundle without certificates. */
export function parseCertificateBundle(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error('no certificates found in the bundle');
  return blocks.map((b) => new X509Certificate(b));
}

function validAt(cert: X509Certificate, now: Date): boolean {
  return new Date(cert.validFrom) <= now && now <= new Date(cert.validTo);
}

function issuedBy(child: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return child.checkIssued(issuer) && child.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

/**
 * Verifies a presented chain (leaf first, DER) against trusted roots, using the presented
 * intermediates as needed. Returns the leaf, or throws a plain Error saying why not.
 */
export function verifyClientChain(chain: Uint8Array[], roots: X509Certificate[], now = new Date()): X509Certificate {
  if (chain.length === 0) throw new Error('no client certificate');
  const certs = chain.map((der) => new X509Certificate(Buffer.from(der)));
  const leaf = certs[0]!;
  if (!validAt(leaf, now)) throw new Error('x509: certificate has expired or is not yet valid');
  const eku = leaf.keyUsage;
  if (eku && eku.length > 0 && !eku.includes(OID_CLIENT_AUTH) && !eku.includes(OID_ANY_EKU)) {
    throw new Error('x509: certificate specifies an incompatible key usage');
  }
  const intermediates = certs.slice(1);
  const reaches = (cert: X509Certificate, depth: number, used: Set<X509Certificate>): boolean => {
    if (depth > 8) return false;
    for (const root of roots) {
      if (root.raw.equals(cert.raw)) return true;
      if (root.ca && validAt(root, now) && issuedBy(cert, root)) return true;
    }
    for (const mid of intermediates) {
      if (used.has(mid) || !mid.ca || !validAt(mid, now) || !issuedBy(cert, mid)) continue;
      used.add(mid);
      if (reaches(mid, depth + 1, used)) return true;
      used.delete(mid);
    }
    return false;
  };
  if (!reaches(leaf, 0, new Set())) throw new Error('x509: certificate signed by unknown authority');
  return leaf;
}

/** The subject's common name and organizations of a certificate. */
export function subjectOf(cert: X509Certificate): { commonName: string; organizations: string[] } {
  return certificateSubject(cert.raw);
}

/** CN to user, O to groups. A chain that does not verify is rejected (401), never trusted. */
export class X509Authenticator implements Authenticator {
  constructor(private readonly roots: () => X509Certificate[]) {}

  async authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | null> {
    if (req.clientCertificateChain.length === 0) return null;
    let leaf: X509Certificate;
    try {
      leaf = verifyClientChain(req.clientCertificateChain, this.roots());
    } catch {
      throw unauthorized();
    }
    const { commonName, organizations } = subjectOf(leaf);
    if (!commonName) throw unauthorized();
    return { user: { username: commonName, groups: organizations } };
  }
}
