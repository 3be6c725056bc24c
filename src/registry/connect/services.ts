// `services/<[scheme:]name[:port]>/proxy/...`, as kube-apiserver resolves it: a port number
// is turned into the service port's name, the Endpoints object of the service gives the
// addresses of that port name, and only an address that is the IP of the pod it names (in
// the same namespace) is used, picked at random. Addresses outside the proxy's address rule
// are skipped as well.
import { badRequest, serviceUnavailable } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { isPlainObject } from '../../apimachinery/types.js';
import { defaultAddressPolicy, escapePath, joinPreserveTrailingSlash, splitSchemeNamePort, targetURL, type AddressPolicy } from '../../proxy/location.js';
import type { ConnectRequest, RequestContext, RESTStore } from '../../rest/index.js';
import { forward } from './forward.js';
import { proxyRedirect, proxyTarget, rawQuery } from './redirect.js';

function record(v: unknown): Record<string, unknown> {
  return isPlainObject(v) ? (v as Record<string, unknown>) : {};
}

function list(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? v.map(record) : [];
}

function getter(store: RESTStore, what: string): NonNullable<RESTStore['get']> {
  const get = store.get;
  if (!get) throw new Error(`${what}: the store cannot get`);
  return get.bind(store);
}

export interface ServiceProxyOptions {
  services: RESTStore;
  endpoints: RESTStore;
  pods: RESTStore;
  addressPolicy?: AddressPolicy;
  /** Picks an index below `n` (tests make it deterministic). */
  random?: (n: number) => number;
}

export class ServiceProxy {
  private readonly addressPolicy: AddressPolicy;
  private readonly random: (n: number) => number;

  constructor(private readonly opts: ServiceProxyOptions) {
    this.addressPolicy = opts.addressPolicy ?? defaultAddressPolicy;
    this.random = opts.random ?? ((n) => Math.floor(Math.random() * n));
  }

  /** The address is the IP of the pod it targets, in the request's namespace. */
  private async isPodAddress(ctx: RequestContext, namespace: string, addr: Record<string, unknown>): Promise<boolean> {
    const ref = record(addr.targetRef);
    if (!isPlainObject(addr.targetRef) || ref.namespace !== namespace || typeof ref.name !== 'string') return false;
    let pod: KubeObject;
    try {
      pod = await getter(this.opts.pods, 'pods')(ctx, namespace, ref.name, {});
    } catch {
      return false;
    }
    const status = record(pod.status);
    const ips = list(status.podIPs).map((p) => p.ip);
    if (ips.length === 0 && typeof status.podIP === 'string') ips.push(status.podIP);
    return ips.includes(addr.ip);
  }

  /** The scheme, address and port `id` resolves to. */
  async resolve(ctx: RequestContext, namespace: string, id: string): Promise<{ scheme: 'http' | 'https'; ip: string; port: string }> {
    const parts = splitSchemeNamePort(id);
    if (!parts) throw badRequest(`invalid service request ${JSON.stringify(id)}`);
    let portName = parts.port;
    if (/^[+-]?\d+$/.test(portName)) {
      const portNum = Number(portName);
      const svc = await getter(this.opts.services, 'services')(ctx, namespace, parts.name, {});
      const port = list(record(svc.spec).ports).find((p) => p.port === portNum);
      if (!port) throw serviceUnavailable(`no service port ${portNum} found for service ${JSON.stringify(parts.name)}`);
      portName = typeof port.name === 'string' ? port.name : '';
    }
    const eps = await getter(this.opts.endpoints, 'endpoints')(ctx, namespace, parts.name, {});
    const subsets = list(eps.subsets);
    if (subsets.length === 0) throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(parts.name)}`);
    const start = this.random(subsets.length);
    for (let i = 0; i < subsets.length; i++) {
      const ss = subsets[(start + i) % subsets.length]!;
      const addresses = list(ss.addresses);
      if (addresses.length === 0) continue;
      for (const port of list(ss.ports)) {
        if ((typeof port.name === 'string' ? port.name : '') !== portName) continue;
        const seed = this.random(addresses.length);
        for (let t = 0; t < addresses.length; t++) {
          const addr = addresses[(seed + t) % addresses.length]!;
          const ip = typeof addr.ip === 'string' ? addr.ip : '';
          if (!this.addressPolicy(ip) || !(await this.isPodAddress(ctx, namespace, addr))) continue;
          return { scheme: parts.scheme || 'http', ip, port: String(port.port ?? '') };
        }
      }
    }
    throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(id)}`);
  }

  async connect(ctx: RequestContext, namespace: string, id: string, subresource: string, r: ConnectRequest): Promise<void> {
    if (subresource !== 'proxy') throw badRequest(`no connect subresource ${JSON.stringify(subresource)}`);
    const { scheme, ip, port } = await this.resolve(ctx, namespace, id);
    const path = joinPreserveTrailingSlash('', r.path);
    if (proxyRedirect(path, r)) return;
    const target = proxyTarget(() => targetURL(scheme, ip, port, escapePath(path), rawQuery(r), this.addressPolicy));
    await forward(r, ctx.signal, { mode: 'proxy', target, ...(scheme === 'https' ? { tls: { insecureSkipVerify: true } } : {}) });
  }
}
