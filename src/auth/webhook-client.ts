// Calls a webhook described by a kubeconfig-format file (the token authentication and the
// authorization webhooks): POSTs a JSON review over HTTPS and returns the decoded answer.
import { request } from 'node:https';
import { readKubeconfig, type ClientConfig } from '../client/kubeconfig.js';
import { isPlainObject } from '../apimachinery/types.js';

export class WebhookClient {
  private readonly config: ClientConfig;

  constructor(
    configFile: string,
    private readonly timeoutMs = 30_000,
  ) {
    this.config = readKubeconfig(configFile);
    if (!this.config.server.startsWith('https://')) throw new Error(`webhook server must use https: ${configFile}`);
  }

  /** Posts `body`; resolves with the JSON answer of a 2xx response, rejects otherwise. */
  post(body: unknown): Promise<Record<string, unknown>> {
    const url = new URL(this.config.server);
    const payload = JSON.stringify(body);
    const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) };
    if (this.config.token) headers['Authorization'] = `Bearer ${this.config.token}`;
    return new Promise((resolve, reject) => {
      const req = request(
        {
          protocol: url.protocol,
          hostname: url.hostname,
          port: url.port || 443,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers,
          ca: this.config.caPem,
          cert: this.config.clientCertPem,
          key: this.config.clientKeyPem,
          servername: this.config.tlsServerName ?? (/^[\d.]+$|:/.test(url.hostname) ? undefined : url.hostname),
          rejectUnauthorized: !this.config.insecureSkipTlsVerify,
          timeout: this.timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const code = res.statusCode ?? 0;
            if (code < 200 || code >= 300) {
              reject(new Error(`webhook answered HTTP ${code}`));
              return;
            }
            try {
              const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
              if (!isPlainObject(parsed)) throw new Error('not an object');
              resolve(parsed);
            } catch {
              reject(new Error('webhook answered an undecodable body'));
            }
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error('webhook call timed out')));
      req.on('error', reject);
      req.end(payload);
    });
  }
}

/** A small TTL cache for webhook decisions. */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();

  constructor(private readonly maxEntries = 10_000) {}

  get(key: string, now = Date.now()): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expires <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: V, ttlMs: number, now = Date.now()): void {
    if (ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expires: now + ttlMs });
  }
}
