// get: one object, or a subresource of it.
import type { KubeObject } from '../../apimachinery/types.js';
import type { GetOptions, RESTStore, RequestContext, SubresourceStore } from '../../rest/index.js';
import { parseGetOptions } from './options.js';
import type { HandlerDeps, Routed } from './request.js';
import { negotiate, respond, writeAnswer } from './response.js';

/** The object `name`, or what its `subresource` answers for it. */
export function getResource(ctx: RequestContext, store: RESTStore, namespace: string, name: string, opts: GetOptions, subresource?: SubresourceStore): Promise<KubeObject> {
  return subresource ? subresource.get!(ctx, namespace, name, opts) : store.get!(ctx, namespace, name, opts);
}

export async function serveGet(deps: HandlerDeps, { r, ctx, store, subresource, namespace }: Routed): Promise<void> {
  const choice = negotiate(r, deps.serializers, store, 'object', subresource);
  // The object as it is (no Table or metadata view) and no audit body to record: its bytes
  // are those of every such GET of the same stored revision.
  if (!subresource && store.getAnswer && choice.representation.as === 'Object' && r.audit === undefined) {
    const answer = await store.getAnswer(ctx, namespace, r.info.name, parseGetOptions(r.query));
    if (r.aborted) return;
    writeAnswer(r, choice, answer);
    return;
  }
  const obj = await getResource(ctx, store, namespace, r.info.name, parseGetOptions(r.query), subresource);
  if (r.aborted) return;
  respond(r, deps.serializers, store, choice, 200, obj, deps.now?.() ?? new Date());
}
