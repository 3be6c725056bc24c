// csrapproving: approves node client certificate requests (the agent's client signer) whose
// requester may create `certificatesigningrequests/selfnodeclient` (its own node name) or
// `.../nodeclient` (any node, the bootstrap identities), as a SubjectAccessReview answers.
import type { KubeObject } from '../../apimachinery/types.js';
import type { ApiClient } from '../../client/types.js';
import { signerName } from '../../apis/certificates/signers.js';
import { group } from '../../naming/index.js';
import type { ControllerDescriptor } from '../types.js';
import { csrParts, csrResource, hasCondition, parseRequest, startCSRController, type ParsedRequest } from './common.js';
import { nodeClientProblem } from './signing.js';

interface Recognizer {
  recognize(csr: KubeObject, request: ParsedRequest): boolean;
  subresource: 'selfnodeclient' | 'nodeclient';
  message: string;
}

function isNodeClient(csr: KubeObject, request: ParsedRequest): boolean {
  const { spec } = csrParts(csr);
  return spec.signerName === signerName('apiserver-client-agent') && nodeClientProblem(request, spec.usages ?? []) === undefined;
}

const RECOGNIZERS: Recognizer[] = [
  {
    recognize: (csr, request) => csrParts(csr).spec.username === request.commonName && isNodeClient(csr, request),
    subresource: 'selfnodeclient',
    message: 'Auto approving self kubelet client certificate after SubjectAccessReview.',
  },
  { recognize: isNodeClient, subresource: 'nodeclient', message: 'Auto approving kubelet client certificate after SubjectAccessReview.' },
];

/** Whether the requester of `csr` may create the `subresource` of signing requests. */
async function requesterMay(client: ApiClient, csr: KubeObject, subresource: string): Promise<boolean> {
  const { spec } = csrParts(csr);
  const review = await client.create({ group: group('authorization'), version: 'v1', resource: 'subjectaccessreviews' }, '', {
    apiVersion: `${group('authorization')}/v1`,
    kind: 'SubjectAccessReview',
    spec: {
      user: spec.username ?? '',
      ...(spec.uid ? { uid: spec.uid } : {}),
      groups: spec.groups ?? [],
      ...(spec.extra ? { extra: spec.extra } : {}),
      resourceAttributes: { group: group('certificates'), resource: 'certificatesigningrequests', verb: 'create', subresource },
    },
  });
  return (review.status as { allowed?: boolean } | undefined)?.allowed === true;
}

/** One pass over one request; resolves when done, throws to be retried. */
export async function approveIfNodeClient(client: ApiClient, csr: KubeObject): Promise<void> {
  const { spec, status } = csrParts(csr);
  if (status.certificate || hasCondition(csr, 'Approved') || hasCondition(csr, 'Denied')) return;
  let request: ParsedRequest;
  try {
    request = await parseRequest(spec.request ?? '');
  } catch (err) {
    throw new Error(`unable to parse csr ${JSON.stringify(csr.metadata?.name ?? '')}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const tried: string[] = [];
  for (const r of RECOGNIZERS) {
    if (!r.recognize(csr, request)) continue;
    tried.push(r.subresource);
    if (!(await requesterMay(client, csr, r.subresource))) continue;
    const conditions = [...(status.conditions ?? []), { type: 'Approved', status: 'True', reason: 'AutoApproved', message: r.message }];
    await client.update(csrResource(), '', { ...csr, status: { ...status, conditions } }, 'approval');
    return;
  }
  if (tried.length > 0) {
    throw new Error(`recognized csr ${JSON.stringify(csr.metadata?.name ?? '')} as [${tried.join(' ')}] but subject access review was not approved`);
  }
}

/** The descriptor, built when the manager is: the resource it requires is named in the flavor chosen by then. */
export function csrApprovingController(): ControllerDescriptor {
  return {
    name: 'csrapproving',
    requires: [{ group: group('certificates'), resource: 'certificatesigningrequests' }],
    start: (ctx) => startCSRController(ctx, (csr) => approveIfNodeClient(ctx.client, csr)),
  };
}
