// update: PUT of a whole object or subresource (created when missing, where the kind allows).
import type { AdmissionChain } from '../../admission/types.js';
import type { RequestContext, UpdatedObjectInfo, UpdateOptions, UpdateResult } from '../../rest/index.js';
import { headerValue } from '../http.js';
import { checkName, checkNamespace, decodeObject } from './decode.js';
import { dryRunFromQuery } from './options.js';
import { writeTargetOf, type HandlerDeps, type Routed } from './request.js';
import { negotiate, respond } from './response.js';
import { admissionAttributes, admissionValidator, admit, checkedFieldManager, recordWrite, type WriteTarget } from './write.js';

/**
 * The Store's read-modify-write: `compute` makes the new object from the stored one
 * (undefined when missing), mutating admission sees it, and validating admission runs as
 * the Store's hook. Update, patch and apply all write through here.
 */
export async function updateResource(
  admission: AdmissionChain | undefined,
  ctx: RequestContext,
  w: WriteTarget,
  compute: UpdatedObjectInfo,
  opts: Omit<UpdateOptions, 'validate'>,
  verb: 'update' | 'patch' = 'update',
): Promise<UpdateResult> {
  const objInfo: UpdatedObjectInfo = async (current, applied) => {
    const obj = await compute(current, applied);
    const attrs = admissionAttributes(w, current ? 'UPDATE' : 'CREATE', w.name, obj, current);
    await admit(admission, attrs);
    return attrs.object ?? obj;
  };
  const updateOpts = { ...opts, validate: admissionValidator(admission, w, 'UPDATE'), reportRemoval: !!ctx.history && !opts.dryRun };
  const result = w.subresource ? await w.subresource.update!(ctx, w.namespace, w.name, objInfo, updateOpts) : await w.store.update!(ctx, w.namespace, w.name, objInfo, updateOpts);
  // A server-side apply is an apply whatever it did; a PUT that made the object is a create.
  const written = opts.apply ? 'apply' : result.created && verb === 'update' ? 'create' : verb;
  await recordWrite(ctx, w, written, result.object, opts.userAgent, result.removedAt);
  return result;
}

export async function serveUpdate(deps: HandlerDeps, routed: Routed): Promise<void> {
  const { r, ctx, store, subresource, namespace } = routed;
  const choice = negotiate(r, deps.serializers, store, 'object', subresource);
  const dryRun = dryRunFromQuery(r.query, 'UpdateOptions');
  const body = await decodeObject(r, deps.serializers, deps.maxBodyBytes, store, 'UpdateOptions', subresource);
  r.audit?.requestObject(body);
  const name = r.info.name;
  checkName(body, name, namespace);
  checkNamespace(body, namespace, store);
  const fieldManager = checkedFieldManager(r.query.get('fieldManager') ?? undefined, 'UpdateOptions');
  const result = await updateResource(deps.admission, ctx, writeTargetOf(routed, name, dryRun), () => structuredClone(body), {
    dryRun,
    fieldManager,
    userAgent: headerValue(r.req, 'user-agent'),
  });
  respond(r, deps.serializers, store, choice, result.created ? 201 : 200, result.object, deps.now?.() ?? new Date());
}
