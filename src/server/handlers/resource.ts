// Resource requests: route to the Store (routing.ts), then the HTTP handler of the verb.
// Each verb's file holds the transport-independent operation (decoded input in, result
// out; the in-process client calls it too) and the HTTP adapter around it.
import { badRequest } from '../../apimachinery/errors.js';
import { pathSegmentName } from '../../registry/index.js';
import type { RequestContext } from '../../rest/index.js';
import type { RequestInfo } from '../request-info.js';
import { serveConnect } from './connect.js';
import { serveCreate } from './create.js';
import { serveDelete, serveDeleteCollection } from './delete.js';
import { serveGet } from './get.js';
import { serveList } from './list.js';
import { servePatch } from './patch.js';
import type { HandlerDeps, ResourceRequest, Routed } from './request.js';
import { resolveStore } from './routing.js';
import { serveUpdate } from './update.js';
import { serveWatch } from './watch.js';

const HANDLERS: Record<string, (deps: HandlerDeps, routed: Routed) => Promise<void>> = {
  get: serveGet,
  list: serveList,
  watch: serveWatch,
  create: serveCreate,
  update: serveUpdate,
  patch: servePatch,
  delete: serveDelete,
  deletecollection: serveDeleteCollection,
};

export async function serveResource(deps: HandlerDeps, r: ResourceRequest): Promise<void> {
  const { store, subresource, namespace, connect } = resolveStore(deps.table, r.info, (r.req.method ?? 'GET').toUpperCase());
  // A deprecated version of a custom resource warns on every request to it, errors included.
  const deprecation = store.definition.customResource?.deprecationWarning;
  if (deprecation && !r.warnings.includes(deprecation)) r.warnings.push(deprecation);
  const ctx: RequestContext = {
    user: r.user,
    // Made only when the Store asks for it.
    get signal() {
      return r.signal;
    },
    warnings: r.warnings,
    audit: r.audit,
    history: deps.history,
  };
  const routed: Routed = { r, ctx, store, namespace };
  if (subresource) routed.subresource = subresource;
  if (connect) return serveConnect(deps, routed);
  // resolveStore admits only the verbs above.
  await HANDLERS[r.info.verb]?.(deps, routed);
}

/**
 * Names and namespaces taken from the path must be usable as a single path segment, as the
 * generic registry's key functions require: `Name parameter invalid: "..": may not be '..'`.
 */
export function checkPathNames(info: RequestInfo): void {
  if (info.name && !info.collection) {
    const problems = pathSegmentName(info.name, false);
    if (problems.length > 0) throw badRequest(`Name parameter invalid: ${JSON.stringify(info.name)}: ${problems.join(';')}`);
  }
  if (info.namespace) {
    const problems = pathSegmentName(info.namespace, false);
    if (problems.length > 0) throw badRequest(`Namespace parameter invalid: ${JSON.stringify(info.namespace)}: ${problems.join(';')}`);
  }
}
