// Asking an aggregated API server for its discovery document: one bounded HTTPS GET with the
// front-proxy client certificate, the body capped, its resources read defensively.
import { request } from 'node:https';

/** Where a remote is reached and how its certificate is checked. */
export interface RemoteEndpoint {
  host: string;
  port: number;
  /** The name its serving certificate must carry: `<service>.<namespace>.svc`. */
  serverName: string;
  ca?: Buffer;
  insecureSkipTLSVerify: boolean;
  /** The front-proxy client certificate and key (PEM). */
  clientCert?: string | Buffer;
  clientKey?: string | Buffer;
}

export function endpointURL(e: RemoteEndpoint, path: string): string {
  const host = e.host.includes(':') ? `[${e.host}]` : e.host;
  return `https://${host}:${e.port}${path}`;
}

/** The most of a discovery document read from a remote. */
const MAX_DISCOVERY_BYTES = 4 << 20;

/** GETs `path` as JSON; resolves with the status and parsed body (undefined when not JSON), rejects on transport failure or timeout. */
export function getJSON(e: RemoteEndpoint, path: string, timeoutMs: number): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: e.host,
      port: e.port,
      path,
      method: 'GET',
      headers: { accept: 'application/json' },
      agent: false,
      servername: e.serverName,
      ...(e.ca ? { ca: e.ca } : {}),
      ...(e.clientCert ? { cert: e.clientCert } : {}),
      ...(e.clientKey ? { key: e.clientKey } : {}),
      rejectUnauthorized: !e.insecureSkipTLSVerify,
    });
    const timer = setTimeout(() => req.destroy(new Error(`Get "${endpointURL(e, path)}": context deadline exceeded`)), timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_DISCOVERY_BYTES) req.destroy(new Error(`response larger than ${MAX_DISCOVERY_BYTES} bytes`));
        else chunks.push(c);
      });
      res.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      res.on('end', () => {
        clearTimeout(timer);
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.end();
  });
}

/** The `resources` of an APIResourceList for `groupVersion`; [] when the body is anything else. */
export function resourcesOf(body: unknown, groupVersion: string): Record<string, unknown>[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  const list = body as Record<string, unknown>;
  if (list.kind !== 'APIResourceList' || list.groupVersion !== groupVersion || !Array.isArray(list.resources)) return [];
  return list.resources.filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null && !Array.isArray(r) && typeof (r as { name?: unknown }).name === 'string').slice(0, 1000);
}
