// The certificate plugins: approving a signing request needs the `approve` verb on the
// signer, issuing a certificate (its status) needs `sign`, and no one may ask the API
// server's client signer for a certificate in the group that bypasses authorization.
import type { UserInfo } from '../apimachinery/types.js';
import { subjectAccessReviewAccess } from './access.js';
import type { ApiClient } from '../client/types.js';
import { flavor, group, longDomain } from '../naming/index.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './types.js';
import { admissionForbidden, isResource, specOf, stringAt } from './util.js';
import { deepEqual } from '../apimachinery/equality.js';
import { isPlainObject } from '../apimachinery/types.js';
import { derChildren, readDerElement } from '../apimachinery/der.js';

type SignerVerb = 'approve' | 'sign' | 'attest';

/** Answers whether `user` may perform `verb` on the `signers` resource named `name`. */
export type SignerAuthorizer = (user: UserInfo, verb: SignerVerb, name: string) => Promise<boolean>;

/** The API server's client signer: `orch.io/apiserver-client` / `kubernetes.io/kube-apiserver-client`. */
export function apiserverClientSigner(): string {
  return `${longDomain()}/${flavor() === 'orch' ? 'apiserver-client' : 'kube-apiserver-client'}`;
}

const MASTERS = 'system:masters';

/** Asks the server's authorizer through a SubjectAccessReview. */
export function subjectAccessReviewAuthorizer(client: ApiClient): SignerAuthorizer {
  const access = subjectAccessReviewAccess(client);
  return async (user, verb, name) =>
    (await access(user, { group: group('certificates'), version: '*', resource: 'signers', verb, name, namespace: '', subresource: '' })).allowed;
}

/** Allowed on the signer itself, or on every signer of its domain (`example.com/*`). */
export async function authorizedForSigner(authorize: SignerAuthorizer, user: UserInfo, verb: SignerVerb, signerName: string): Promise<boolean> {
  if (await authorize(user, verb, signerName)) return true;
  return authorize(user, verb, `${signerName.split('/')[0]}/*`);
}

const csrResource = (): string => group('certificates');
const updateOnly = (operation: AdmissionOperation): boolean => operation === 'UPDATE';

export class CertificateApproval implements AdmissionPlugin {
  readonly name = 'CertificateApproval';
  readonly handles = updateOnly;
  constructor(private readonly authorize: SignerAuthorizer) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!isResource(attrs, csrResource(), 'certificatesigningrequests', 'approval') || !attrs.object) return;
    const signer = stringAt(specOf(attrs.object), 'signerName') ?? '';
    if (!(await authorizedForSigner(this.authorize, attrs.user, 'approve', signer))) {
      throw admissionForbidden(attrs, `user not permitted to approve requests with signerName "${signer}"`);
    }
  }
}

export class CertificateSigning implements AdmissionPlugin {
  readonly name = 'CertificateSigning';
  readonly handles = updateOnly;
  constructor(private readonly authorize: SignerAuthorizer) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!isResource(attrs, csrResource(), 'certificatesigningrequests', 'status') || !attrs.object) return;
    const certificate = (o: unknown): unknown => (isPlainObject(o) && isPlainObject(o.status) ? o.status.certificate : undefined);
    // Only issuing or changing the certificate is signing.
    if ((certificate(attrs.object) ?? '') === (certificate(attrs.oldObject) ?? '')) return;
    const signer = stringAt(specOf(attrs.object), 'signerName') ?? '';
    if (!(await authorizedForSigner(this.authorize, attrs.user, 'sign', signer))) {
      throw admissionForbidden(attrs, `user not permitted to sign requests with signerName "${signer}"`);
    }
  }
}

/** Publishing a trust bundle for a signer needs the `attest` verb on it (served only when the alpha API is enabled). */
export class ClusterTrustBundleAttest implements AdmissionPlugin {
  readonly name = 'ClusterTrustBundleAttest';
  constructor(private readonly authorize: SignerAuthorizer) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!isResource(attrs, csrResource(), 'clustertrustbundles') || !attrs.object) return;
    const spec = specOf(attrs.object);
    const signer = stringAt(spec, 'signerName');
    if (!signer) return;
    // A write that leaves the bundle's meaning alone (migration, finalizers) needs no attestation.
    if (attrs.operation === 'UPDATE' && deepEqual(specOf(attrs.oldObject) ?? {}, spec ?? {})) return;
    if (!(await authorizedForSigner(this.authorize, attrs.user, 'attest', signer))) {
      throw admissionForbidden(attrs, `user not permitted to attest for signerName "${signer}"`);
    }
  }
}

export const certificateSubjectRestriction: AdmissionPlugin = {
  name: 'CertificateSubjectRestriction',
  handles: (operation) => operation === 'CREATE',
  async validate(attrs: AdmissionAttributes) {
    if (!isResource(attrs, csrResource(), 'certificatesigningrequests') || !attrs.object) return;
    const spec = specOf(attrs.object);
    const signer = stringAt(spec, 'signerName');
    if (signer !== apiserverClientSigner()) return;
    let organizations: string[];
    try {
      organizations = csrOrganizations(stringAt(spec, 'request') ?? '');
    } catch (err) {
      throw admissionForbidden(attrs, `failed to parse CSR: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (organizations.includes(MASTERS)) throw admissionForbidden(attrs, `use of ${signer} signer with ${MASTERS} group is not allowed`);
  },
};

// --- PKCS#10: just enough DER to read the subject's organizations ---

/** Go's asn1 package's words for a malformed request. */
const GO_ASN1 = { truncated: 'asn1: syntax error: data truncated', badLength: 'asn1: structure error: length too large' };

const ORGANIZATION_OID = '55040a'; // 2.5.4.10

/** The subject organizations (O=) of a PEM certificate request given as base64 (as the API carries it). */
export function csrOrganizations(requestBase64: string): string[] {
  const pem = Buffer.from(requestBase64, 'base64').toString('latin1');
  const match = /-----BEGIN ([A-Z ]+)-----([\s\S]*?)-----END \1-----/.exec(pem);
  if (!match || match[1] !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  const der = new Uint8Array(Buffer.from(match[2]!.replace(/\s+/g, ''), 'base64'));
  const request = readDerElement(der, 0, GO_ASN1);
  const info = derChildren(der, request, GO_ASN1)[0];
  if (request.tag !== 0x30 || !info || info.tag !== 0x30) throw new Error('asn1: structure error: tags don\'t match');
  const subject = derChildren(der, info, GO_ASN1)[1];
  if (!subject || subject.tag !== 0x30) throw new Error('asn1: structure error: tags don\'t match');
  const organizations: string[] = [];
  for (const rdn of derChildren(der, subject, GO_ASN1)) {
    for (const attribute of derChildren(der, rdn, GO_ASN1)) {
      const [oid, value] = derChildren(der, attribute, GO_ASN1);
      if (!oid || !value || oid.tag !== 0x06) continue;
      if (Buffer.from(der.subarray(oid.contents, oid.end)).toString('hex') === ORGANIZATION_OID) {
        organizations.push(Buffer.from(der.subarray(value.contents, value.end)).toString('utf8'));
      }
    }
  }
  return organizations;
}
