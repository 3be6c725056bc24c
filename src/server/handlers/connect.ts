// Connect subresources (`pods/x/proxy/...`, `pods/x/exec`, `pods/x/log`, `services/x/proxy`,
// `nodes/x/proxy`): the Store answers on the raw response or the upgraded socket itself. As
// kube-apiserver's connect handler does, the request's options go through CONNECT admission
// (the log, a plain read, does not) before the Store is called.
import type { Duplex } from 'node:stream';
import type { KubeObject } from '../../apimachinery/types.js';
import type { ConnectRequest } from '../../rest/index.js';
import type { ServerRequest } from '../http.js';
import type { RequestInfo } from '../request-info.js';
import type { HandlerDeps, Routed } from './request.js';

/** The methods each connect subresource is served for (kube-apiserver's connecters'). */
export const CONNECT_METHODS: Record<string, readonly string[]> = {
  proxy: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'],
  exec: ['GET', 'POST'],
  attach: ['GET', 'POST'],
  portforward: ['GET', 'POST'],
  log: ['GET'],
};

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

function queryBool(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  return v !== null && v !== '0' && v.toLowerCase() !== 'false';
}

/** The options object CONNECT admission sees, as the connecter's options kind. */
export function connectOptions(resource: string, subresource: string, query: URLSearchParams, path: string): KubeObject {
  const base = { apiVersion: 'v1' };
  if (subresource === 'proxy') {
    const kind = resource === 'services' ? 'ServiceProxyOptions' : resource === 'nodes' ? 'NodeProxyOptions' : 'PodProxyOptions';
    return { ...base, kind, ...(path ? { path } : {}) } as KubeObject;
  }
  if (subresource === 'portforward') {
    const ports = query.getAll('ports').flatMap((v) => v.split(',')).filter((v) => /^\d+$/.test(v)).map(Number);
    return { ...base, kind: 'PodPortForwardOptions', ...(ports.length ? { ports } : {}) } as KubeObject;
  }
  const defaults = [...query.keys()].length > 0;
  const opts: Record<string, unknown> = {
    ...base,
    kind: subresource === 'exec' ? 'PodExecOptions' : 'PodAttachOptions',
    ...(queryBool(query, 'stdin') ? { stdin: true } : {}),
    ...(defaults || queryBool(query, 'stdout') ? { stdout: true } : {}),
    ...(defaults || queryBool(query, 'stderr') ? { stderr: true } : {}),
    ...(queryBool(query, 'tty') ? { tty: true } : {}),
    ...(query.get('container') ? { container: query.get('container') } : {}),
  };
  if (subresource === 'exec') opts.command = query.getAll('command');
  return opts as KubeObject;
}

export async function serveConnect(deps: HandlerDeps, routed: Routed): Promise<void> {
  const { r, ctx, store, namespace } = routed;
  const req = r.req as ServerRequest & ConnectRequest['request'];
  const rawPathname = (req.url ?? '/').split('?')[0]!;
  const info = r.info;
  const path = connectPath(info, rawPathname);
  const method = (req.method ?? 'GET').toUpperCase();
  if (deps.admission && info.subresource !== 'log') {
    const def = store.definition;
    const attrs = {
      operation: 'CONNECT' as const,
      object: connectOptions(def.resource, info.subresource, r.query, path),
      kind: { group: def.group, version: def.version, kind: def.kind },
      resource: { group: def.group, version: def.version, resource: def.resource },
      subresource: info.subresource,
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
  await store.connect!(ctx, namespace, info.name, info.subresource, request);
}
