// create: a new object (POST to a collection), or a create subresource of an object
// (POST to e.g. pods/binding, whose name is the object's).
import type { KubeObject } from '../../apimachinery/types.js';
import type { AdmissionChain } from '../../admission/types.js';
import type { CreateOptions, RequestContext } from '../../rest/index.js';
import { headerValue } from '../http.js';
import { checkNamespace, decodeObject } from './decode.js';
import { dryRunFromQuery } from './options.js';
import { writeTargetOf, type HandlerDeps, type Routed } from './request.js';
import { negotiate, respond } from './response.js';
import { admissionAttributes, admissionValidator, admit, checkedFieldManager, recordWrite, type WriteTarget } from './write.js';

/**
 * Mutating admission, then the Store's create with validating admission as its hook.
 * `w.name` is the object's name ('' while the Store is still to generate it), or for a
 * subresource the name of the object it belongs to.
 */
export async function createResource(
  admission: AdmissionChain | undefined,
  ctx: RequestContext,
  w: WriteTarget,
  obj: KubeObject,
  opts: Omit<CreateOptions, 'validate'>,
): Promise<KubeObject> {
  const attrs = admissionAttributes(w, 'CREATE', w.name, obj);
  await admit(admission, attrs);
  const object = attrs.object ?? obj;
  const createOpts = { ...opts, validate: admissionValidator(admission, w, 'CREATE') };
  const created = w.subresource ? await w.subresource.create!(ctx, w.namespace, w.name, object, createOpts) : await w.store.create!(ctx, w.namespace, object, createOpts);
  // A create subresource (pods/binding) writes the object it belongs to.
  await recordWrite(ctx, w.subresource ? w : { ...w, name: created.metadata?.name ?? w.name }, w.subresource ? 'update' : 'create', created, opts.userAgent);
  return created;
}

export async function serveCreate(deps: HandlerDeps, routed: Routed): Promise<void> {
  const { r, ctx, store, subresource, namespace } = routed;
  const choice = negotiate(r, deps.serializers, store, 'object', subresource);
  const dryRun = dryRunFromQuery(r.query, 'CreateOptions');
  const obj = await decodeObject(r, deps.serializers, deps.maxBodyBytes, store, 'CreateOptions', subresource);
  r.audit?.requestObject(obj);
  if (!subresource) checkNamespace(obj, namespace, store);
  const name = subresource ? r.info.name : (obj.metadata?.name ?? '');
  const fieldManager = checkedFieldManager(r.query.get('fieldManager') ?? undefined, 'CreateOptions');
  const created = await createResource(deps.admission, ctx, writeTargetOf(routed, name, dryRun), obj, { dryRun, fieldManager, userAgent: headerValue(r.req, 'user-agent') });
  respond(r, deps.serializers, store, choice, 201, created, deps.now?.() ?? new Date());
}
