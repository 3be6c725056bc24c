// list: a collection, in one namespace or across all of them.
import type { ListOptions, RESTStore, RequestContext, StoreList } from '../../rest/index.js';
import { parseListOptions } from './options.js';
import type { HandlerDeps, Routed } from './request.js';
import { negotiate, respondList } from './response.js';

export function listResources(ctx: RequestContext, store: RESTStore, namespace: string, opts: ListOptions): Promise<StoreList> {
  return store.list!(ctx, namespace, opts);
}

export async function serveList(deps: HandlerDeps, { r, ctx, store, namespace }: Routed): Promise<void> {
  const choice = negotiate(r, deps.serializers, store, 'list');
  const opts = parseListOptions(r.query, false);
  // Without APIListChunking the storage does not page: limit and continue are ignored and the whole list answers.
  if (deps.features && !deps.features.enabled('APIListChunking')) {
    delete opts.limit;
    delete opts.continue;
  }
  // The answer encodes the items as it writes them: a list from the watch cache builds them then (StoreList.lazy).
  const list = await listResources(ctx, store, namespace, opts);
  if (deps.features && !deps.features.enabled('RemainingItemCount')) delete list.metadata.remainingItemCount;
  // A client that reset its stream meanwhile gets nothing: encoding a large list for nobody is the cost.
  if (r.signal.aborted) return;
  await respondList(r, deps.serializers, store, choice, list, deps.now?.() ?? new Date());
}
