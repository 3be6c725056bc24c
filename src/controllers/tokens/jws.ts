// The detached JWS the bootstrap signer puts in cluster-info (RFC 7515 appendix F): a compact
// HS256 JWS over the kubeconfig with the payload part left empty, `kid` naming the token.
import { CompactSign } from 'jose';

/**
 * Signs `content` for token `tokenId`. The HMAC key is the token secret alone, as Kubernetes'
 * signer and `kubeadm join` compute it (its documentation says the whole token; its code and
 * test vectors use the secret). Only the protected header and the signature are kept.
 */
export async function detachedSignature(content: string, tokenId: string, tokenSecret: string): Promise<string> {
  const compact = await new CompactSign(new TextEncoder().encode(content))
    .setProtectedHeader({ alg: 'HS256', kid: tokenId })
    .sign(new TextEncoder().encode(tokenSecret));
  const [header, , signature] = compact.split('.');
  return `${header ?? ''}..${signature ?? ''}`;
}
