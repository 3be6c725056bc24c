// delete of one object, and deletecollection.
import { successStatus } from '../../apimachinery/errors.js';
import type { KubeList } from '../../apimachinery/types.js';
import type { AdmissionChain } from '../../admission/types.js';
import type { DeleteOptions, DeleteResult, ListOptions, RequestContext } from '../../rest/index.js';
import { readOptionalJson } from './decode.js';
import { parseDeleteOptions, parseListOptions } from './options.js';
import { writeTargetOf, type HandlerDeps, type Routed } from './request.js';
import { negotiate, respond, writeEncoded } from './response.js';
import { admissionAttributes, admissionValidator, admit, recordWrite, type WriteTarget } from './write.js';

/** Mutating admission (no object yet), then the Store's delete with validating admission as its hook. */
export async function deleteResource(admission: AdmissionChain | undefined, ctx: RequestContext, w: WriteTarget, opts: Omit<DeleteOptions, 'validate'>): Promise<DeleteResult> {
  await admit(admission, admissionAttributes(w, 'DELETE', w.name));
  const result = await w.store.delete!(ctx, w.namespace, w.name, { ...opts, validate: admissionValidator(admission, w, 'DELETE'), reportRemoval: !!ctx.history && !opts.dryRun });
  await recordWrite(ctx, w, 'delete', result.object, undefined, result.removedAt);
  return result;
}

/** As deleteResource, for every object a list with `listOpts` would return. */
export async function deleteResources(
  admission: AdmissionChain | undefined,
  ctx: RequestContext,
  w: WriteTarget,
  opts: Omit<DeleteOptions, 'validate'>,
  listOpts: ListOptions,
): Promise<KubeList> {
  await admit(admission, admissionAttributes(w, 'DELETE', ''));
  const done: DeleteResult[] = [];
  const history = !!ctx.history && !opts.dryRun;
  const each = history ? { reportRemoval: true, onEach: (r: DeleteResult) => done.push(r) } : {};
  const deleted = await w.store.deleteCollection!(ctx, w.namespace, { ...opts, validate: admissionValidator(admission, w, 'DELETE'), ...each }, listOpts);
  for (const r of done) {
    const m = r.object.metadata ?? {};
    await recordWrite(ctx, { ...w, namespace: m.namespace ?? w.namespace, name: m.name ?? '' }, 'delete', r.object, undefined, r.removedAt);
  }
  return deleted;
}

export async function serveDelete(deps: HandlerDeps, routed: Routed): Promise<void> {
  const { r, ctx, store } = routed;
  const choice = negotiate(r, deps.serializers, store, 'object');
  const body = await readOptionalJson(r, deps.serializers, deps.maxBodyBytes);
  if (body !== undefined) r.audit?.requestObject(body);
  const opts = parseDeleteOptions(r.query, body);
  const name = r.info.name;
  const { orphanDependents } = opts;
  const result = await deleteResource(deps.admission, ctx, writeTargetOf(routed, name, opts.dryRun), opts);
  const def = store.definition;
  const code = !result.deleted && orphanDependents === false ? 202 : 200;
  if (result.deleted && !def.strategy?.returnDeletedObject) {
    // Kubernetes answers a completed delete with a Success Status naming the object (no code field).
    const status: Record<string, unknown> = { ...successStatus() };
    delete status.code;
    const details: Record<string, unknown> = { name: result.object.metadata?.name ?? name };
    if (def.group) details.group = def.group;
    details.kind = def.resource;
    if (result.object.metadata?.uid) details.uid = result.object.metadata.uid;
    status.details = details;
    writeEncoded(r, deps.serializers, choice, code, status);
    return;
  }
  respond(r, deps.serializers, store, choice, code, result.object, deps.now?.() ?? new Date());
}

export async function serveDeleteCollection(deps: HandlerDeps, routed: Routed): Promise<void> {
  const { r, ctx, store } = routed;
  const choice = negotiate(r, deps.serializers, store, 'list');
  const listOpts = parseListOptions(r.query, false);
  const opts = parseDeleteOptions(r.query, await readOptionalJson(r, deps.serializers, deps.maxBodyBytes));
  const list = await deleteResources(deps.admission, ctx, writeTargetOf(routed, '', opts.dryRun), opts, listOpts);
  respond(r, deps.serializers, store, choice, 200, list, deps.now?.() ?? new Date());
}
