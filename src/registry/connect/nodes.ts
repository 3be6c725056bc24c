// `nodes/<[scheme:]name[:port]>/proxy/...`, as kube-apiserver resolves it: the node's
// preferred address, whose every resolved IP must be global unicast (400 `address not
// allowed` otherwise); the agent's port with the kubelet client credentials, or another port
// of the node without them.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { badRequest } from '../../apimachinery/errors.js';
import { ADDRESS_NOT_ALLOWED, defaultAddressPolicy, escapePath, joinPreserveTrailingSlash, splitSchemeNamePort, targetURL, type AddressPolicy } from '../../proxy/location.js';
import type { ProxyTarget } from '../../proxy/transport.js';
import type { ConnectRequest, RequestContext, RESTStore } from '../../rest/index.js';
import { forward } from './forward.js';
import type { NodeConnections } from './kubelet.js';
import { proxyRedirect, proxyTarget, rawQuery } from './redirect.js';

export interface NodeProxyOptions {
  nodes: RESTStore;
  connections: NodeConnections;
  addressPolicy?: AddressPolicy;
  /** Resolves a node's host name to its addresses (DNS by default). */
  resolve?: (host: string) => Promise<string[]>;
}

async function resolveWithDns(host: string): Promise<string[]> {
  if (isIP(host)) return [host];
  try {
    return (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    throw badRequest(`lookup ${host}: no such host`);
  }
}

export class NodeProxy {
  private readonly addressPolicy: AddressPolicy;
  private readonly resolveHost: (host: string) => Promise<string[]>;

  constructor(private readonly opts: NodeProxyOptions) {
    this.addressPolicy = opts.addressPolicy ?? defaultAddressPolicy;
    this.resolveHost = opts.resolve ?? resolveWithDns;
  }

  /** Where `id` goes: the scheme, host (a checked IP) and port, and its TLS settings. */
  async resolve(ctx: RequestContext, id: string): Promise<{ scheme: 'http' | 'https'; ip: string; port: string; tls: NonNullable<ProxyTarget['tls']> }> {
    const parts = splitSchemeNamePort(id);
    if (!parts) throw badRequest(`invalid node request ${JSON.stringify(id)}`);
    const info = await this.opts.connections.get(ctx, parts.name);
    const ips = await this.resolveHost(info.hostname);
    if (ips.length === 0) throw badRequest('no addresses for hostname');
    if (!ips.every((ip) => this.addressPolicy(ip))) throw badRequest(ADDRESS_NOT_ALLOWED);
    // Connect to the address that was checked, so a second lookup cannot lead elsewhere.
    const ip = ips[0]!;
    const serverName = isIP(info.hostname) ? undefined : info.hostname;
    if (parts.port === '' || parts.port === String(info.port)) {
      return { scheme: info.scheme, ip, port: String(info.port), tls: { ...info.tls, ...(serverName ? { serverName } : {}) } };
    }
    return { scheme: parts.scheme || 'http', ip, port: parts.port, tls: { insecureSkipVerify: true } };
  }

  async connect(ctx: RequestContext, _namespace: string, id: string, subresource: string, r: ConnectRequest): Promise<void> {
    if (subresource !== 'proxy') throw badRequest(`no connect subresource ${JSON.stringify(subresource)}`);
    const { scheme, ip, port, tls } = await this.resolve(ctx, id);
    const path = joinPreserveTrailingSlash('', r.path);
    if (proxyRedirect(path, r)) return;
    const target = proxyTarget(() => targetURL(scheme, ip, port, escapePath(path), rawQuery(r), this.addressPolicy));
    await forward(r, ctx.signal, { mode: 'proxy', target, ...(scheme === 'https' ? { tls } : {}) });
  }
}
