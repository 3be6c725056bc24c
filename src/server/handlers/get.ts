// get: one object, or a subresource of it.
import type { KubeObject } from '../../apimachinery/types.js';
import type { GetOptions, RESTStore, RequestContext } from '../../rest/index.js';
import { parseGetOptions } from './options.js';
import type { HandlerDeps, Routed } from './request.js';
import { negotiate, respond } from './response.js';

export function getResource(ctx: RequestContext, store: RESTStore, namespace: string, name: string, opts: GetOptions, subresource?: string): Promise<KubeObject> {
  return store.get!(ctx, namespace, name, opts, subresource);
}

export async function serveGet(deps: HandlerDeps, { r, ctx, store, namespace }: Routed): Promise<void> {
  const choice = negotiate(r, deps.serializers, store, 'object');
  const obj = await getResource(ctx, store, namespace, r.info.name, parseGetOptions(r.query), r.info.subresource || undefined);
  if (r.signal.aborted) return;
  respond(r, deps.serializers, store, choice, 200, obj, deps.now?.() ?? new Date());
}
