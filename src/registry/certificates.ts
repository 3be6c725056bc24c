// CertificateSigningRequests: the create records who asked (the signer and the approver
// judge the request by it), and the `approval` subresource changes the Approved and Denied
// conditions and nothing else. Who may approve is the CertificateApproval admission
// plugin's question, asked as every subresource write asks admission.
import type { KubeObject } from '../apimachinery/types.js';
import { prepareCSRApproval, setCSRRequester, stampCSRConditions } from '../apis/certificates/index.js';
import { group } from '../naming/index.js';
import type { CreateOptions, GetOptions, RequestContext, ResourceDefinition, UpdatedObjectInfo, UpdateOptions, UpdateResult } from '../rest/index.js';
import { GenericStore } from './store.js';
import { clone } from '../apis/util.js';

const APPROVAL = 'approval';

/** Whether `def` is the CertificateSigningRequest resource (its Store is a CertificateSigningRequestStore). */
export function isCertificateSigningRequests(def: ResourceDefinition): boolean {
  return def.group === group('certificates') && def.resource === 'certificatesigningrequests';
}

export class CertificateSigningRequestStore extends GenericStore {
  override async create(ctx: RequestContext, namespace: string, obj: KubeObject, opts: CreateOptions, name?: string, subresource?: string): Promise<KubeObject> {
    if (subresource) return super.create(ctx, namespace, obj, opts, name, subresource);
    // Whatever the client wrote as the requester is replaced by the caller's identity.
    const request = clone(obj);
    setCSRRequester(request, ctx.user);
    return super.create(ctx, namespace, request, opts, name);
  }

  override async get(ctx: RequestContext, namespace: string, name: string, opts: GetOptions, subresource?: string): Promise<KubeObject> {
    return super.get(ctx, namespace, name, opts, subresource === APPROVAL ? undefined : subresource);
  }

  override async update(
    ctx: RequestContext,
    namespace: string,
    name: string,
    objInfo: UpdatedObjectInfo,
    opts: UpdateOptions,
    subresource?: string,
  ): Promise<UpdateResult> {
    if (subresource !== APPROVAL) return super.update(ctx, namespace, name, objInfo, opts, subresource);
    return this.guaranteedUpdate(namespace, name, this.withApply(objInfo, opts, APPROVAL), opts, APPROVAL);
  }

  protected override prepareForUpdate(obj: KubeObject, old: KubeObject, subresource?: string): void {
    if (subresource === APPROVAL) return prepareCSRApproval(obj, old, this.now());
    // Condition times come from the Store's clock, as every other time it sets.
    if (subresource === 'status') stampCSRConditions(obj, old, this.now());
    super.prepareForUpdate(obj, old, subresource);
  }
}
