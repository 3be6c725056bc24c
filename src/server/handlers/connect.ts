// Connect subresources (`pods/x/proxy/...`, `pods/x/exec`, `pods/x/log`, `services/x/proxy`,
// `nodes/x/proxy`): the subresource's store answers on the raw response or the upgraded
// socket itself. As kube-apiserver's connect handler does, the request's options (as the
// subresource's declaration reads them) go through CONNECT admission (the log, a read, does
// not) before the store is called.
import type { Duplex } from 'node:stream';
import type { ConnectRequest } from '../../rest/index.js';
import type { ServerRequest } from '../http.js';
import type { RequestInfo } from '../request-info.js';
import type { HandlerDeps, Routed } from './request.js';

const upgrades = new WeakMap<object, { socket: Duplex; head: Buffer }>();

/** Marks `req` as an HTTP/1.1 upgrade whose socket and early bytes a connecter may take over. */
export function markUpgrade(req: object, socket: Duplex, head: Buffer): void {
  upgrades.set(req, { socket, head });
}

export function upgradeOf(req: object): { socket: Duplex; head: Buffer } | undefined {
  return upgrades.get(req);
}

/** The path after the subresource, decoded, keeping the request's trailing slash (kube's subpath). */
export function connectPath(info: RequestInfo, rawPathname: string): string {
  let p = (info.parts ?? []).slice(3).join('/');
  if (p !== '' && !p.startsWith('/')) p = `/${p}`;
  if (rawPathname.endsWith('/') && !p.endsWith('/')) p += '/';
  return p;
}

export async function serveConnect(deps: HandlerDeps, routed: Routed): Promise<void> {
  const { r, ctx, store, subresource, namespace } = routed;
  const connect = subresource?.definition.connect;
  if (!subresource?.connect || !connect) throw new Error('a connect request is routed to a connect subresource');
  const req = r.req as ServerRequest & ConnectRequest['request'];
  const rawPathname = (req.url ?? '/').split('?')[0]!;
  const info = r.info;
  const path = connectPath(info, rawPathname);
  const method = (req.method ?? 'GET').toUpperCase();
  // A read with options (the log) is not a CONNECT.
  if (deps.admission && !connect.read) {
    const def = store.definition;
    const attrs = {
      operation: 'CONNECT' as const,
      object: connect.admissionOptions(r.query, path),
      kind: { group: def.group, version: def.version, kind: def.kind },
      resource: { group: def.group, version: def.version, resource: def.resource },
      subresource: subresource.definition.name,
      namespace,
      name: info.name,
      user: r.user,
      dryRun: false,
      warnings: r.warnings,
      ...(ctx.audit ? { audit: ctx.audit } : {}),
    };
    await deps.admission.admit(attrs);
    await deps.admission.validate(attrs);
  }
  const upgrade = upgradeOf(req);
  const request: ConnectRequest = {
    method,
    path,
    query: r.query,
    requestPath: rawPathname,
    request: req,
    response: r.res as unknown as ConnectRequest['response'],
    ...(upgrade ? { upgrade } : {}),
    responseHeaderTimeoutMs: deps.requestTimeoutMs ?? 60_000,
  };
  await subresource.connect(ctx, namespace, info.name, request);
}
