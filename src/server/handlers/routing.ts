// Which Store, or subresource store (both from the resource table), and verb a RequestInfo
// maps to, as Kubernetes routes requests: a path no verb of the resource is served at is 404;
// a path served for other methods is the generic 405; a route whose storage lacks the verb (a
// watch of a resource that is only listed) is 405 naming the verb.
import { methodNotSupported } from '../../apimachinery/errors.js';
import type { RESTStore, ResourceTable, SubresourceStore } from '../../rest/index.js';
import { genericNotFound, methodNotAllowed } from '../http.js';
import type { RequestInfo } from '../request-info.js';

export interface ResolvedStore {
  store: RESTStore;
  /** The subresource's store, when the request is for a subresource. */
  subresource?: SubresourceStore;
  /** The namespace the Store is called with: '' for cluster-scoped resources and cluster-wide lists. */
  namespace: string;
  /** The request goes to the subresource's `connect` (proxy, exec, attach, port-forward, log). */
  connect?: boolean;
}

/** The method of each verb's route at a collection, an object and a subresource path. */
const COLLECTION_ROUTES: Record<string, string> = { list: 'GET', create: 'POST', deletecollection: 'DELETE' };
const OBJECT_ROUTES: Record<string, string> = { get: 'GET', update: 'PUT', patch: 'PATCH', delete: 'DELETE' };
const SUBRESOURCE_ROUTES: Record<string, string> = { get: 'GET', create: 'POST', update: 'PUT', patch: 'PATCH' };
/** Across namespaces only lists are served; the legacy `/watch/` paths serve watches only. */
const CLUSTER_WIDE_ROUTES: Record<string, string> = { list: 'GET' };
const WATCH_ROUTES: Record<string, string> = { watch: 'GET' };
const NO_ROUTES: Record<string, string> = {};

const STORE_METHODS: Record<string, keyof RESTStore> = {
  get: 'get',
  list: 'list',
  watch: 'watch',
  create: 'create',
  update: 'update',
  patch: 'update',
  delete: 'delete',
  deletecollection: 'deleteCollection',
};

const SUBRESOURCE_METHODS: Record<string, keyof SubresourceStore> = {
  get: 'get',
  create: 'create',
  update: 'update',
  patch: 'update',
};

/** The methods a route table serves for a list of verbs; verb lists belong to definitions and do not change. */
const methodSets = new WeakMap<readonly string[], Map<Record<string, string>, Set<string>>>();

function methodsFor(verbs: readonly string[], routes: Record<string, string>): Set<string> {
  let byRoutes = methodSets.get(verbs);
  if (!byRoutes) methodSets.set(verbs, (byRoutes = new Map()));
  let methods = byRoutes.get(routes);
  if (!methods) byRoutes.set(routes, (methods = new Set(verbs.flatMap((v) => routes[v] ?? []))));
  return methods;
}

export function resolveStore(table: ResourceTable, info: RequestInfo, method: string): ResolvedStore {
  const gv = { group: info.apiGroup, version: info.apiVersion };
  const store = table.lookup(gv, info.resource);
  if (!store) throw genericNotFound();
  const def = store.definition;
  // A cluster-scoped resource has no namespace in its path, but for the namespaces themselves.
  if (!def.namespaced && info.namespace !== '' && !info.namespaceObject) throw genericNotFound();
  const clusterWide = def.namespaced && info.namespace === '';
  // The `/proxy/` paths before the resource were removed from Kubernetes; nothing serves them.
  if (info.verb === 'proxy') throw genericNotFound();
  const namespace = def.namespaced ? info.namespace : '';
  const sub = info.subresource ? table.lookupSubresource(gv, info.resource, info.subresource) : undefined;
  if (info.subresource && (!sub || info.collection || info.legacyWatch || clusterWide)) throw genericNotFound();
  const connect = sub?.definition.connect;
  if (sub && connect && sub.connect) {
    if (!connect.methods.includes(method)) throw methodNotAllowed();
    return { store, subresource: sub, namespace, connect: true };
  }
  let verbs = def.verbs;
  let routes: Record<string, string>;
  if (sub) {
    verbs = sub.definition.verbs;
    routes = SUBRESOURCE_ROUTES;
  } else if (info.legacyWatch) {
    // Watching a collection needs a list to start from.
    routes = info.collection && !verbs.includes('list') ? NO_ROUTES : WATCH_ROUTES;
  } else if (clusterWide) {
    routes = info.collection ? CLUSTER_WIDE_ROUTES : NO_ROUTES;
  } else {
    routes = info.collection ? COLLECTION_ROUTES : OBJECT_ROUTES;
  }
  const methods = methodsFor(verbs, routes);
  if (methods.size === 0) throw genericNotFound();
  if (!methods.has(method === 'HEAD' ? 'GET' : method)) throw methodNotAllowed();
  const served = sub ? subresourceServes(sub, info.verb) : storeServes(store, info.verb);
  if (!verbs.includes(info.verb) || !served) throw methodNotSupported({ group: def.group, resource: def.resource }, info.verb);
  return { store, ...(sub ? { subresource: sub } : {}), namespace };
}

function storeServes(store: RESTStore, verb: string): boolean {
  const method = STORE_METHODS[verb];
  return method !== undefined && typeof store[method] === 'function';
}

function subresourceServes(sub: SubresourceStore, verb: string): boolean {
  const method = SUBRESOURCE_METHODS[verb];
  return method !== undefined && typeof sub[method] === 'function';
}
