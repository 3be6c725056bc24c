// The webhook backend (`--audit-webhook-config-file`): each batch is POSTed as an
// audit.<domain>/v1 EventList to the server a kubeconfig-format file names, over HTTPS with
// its CA, client certificate or token. A failed POST is retried with exponential backoff
// (the initial delay from `--audit-webhook-initial-backoff`, factor 1.5, jitter 0.2, 5
// tries); events still undelivered are counted as errors of the plugin "webhook".
import { Agent, request } from 'node:https';
import type { Clock } from '../apimachinery/clock.js';
import { readKubeconfig, type ClientConfig } from '../client/kubeconfig.js';
import type { AuditBackend, EventSnapshot } from './backend.js';
import { encodeEventList } from './event.js';
import type { AuditMetrics } from './metrics.js';

export class AuditWebhookConfigError extends Error {}

/** Reads the kubeconfig; throws naming the file. */
export function loadWebhookConfig(path: string): ClientConfig {
  let config: ClientConfig;
  try {
    config = readKubeconfig(path);
  } catch (e) {
    throw new AuditWebhookConfigError(`initializing audit webhook: invalid configuration in "${path}": ${e instanceof Error ? e.message : String(e)}`);
  }
  let url: URL;
  try {
    url = new URL(config.server);
  } catch {
    throw new AuditWebhookConfigError(`initializing audit webhook: invalid server URL in "${path}"`);
  }
  if (url.protocol !== 'https:') throw new AuditWebhookConfigError(`initializing audit webhook: the server in "${path}" must use https`);
  if (config.exec) throw new AuditWebhookConfigError(`initializing audit webhook: "${path}": credential plugins (exec) are not supported for the audit webhook`);
  return config;
}

export interface WebhookOptions {
  initialBackoffMs: number;
  apiVersion: string;
  /** Per POST. */
  timeoutMs?: number;
  log?: (msg: string) => void;
}

const RETRY_STEPS = 5;
const RETRY_FACTOR = 1.5;
const RETRY_JITTER = 0.2;

export class WebhookBackend implements AuditBackend {
  readonly name = 'webhook';
  private readonly agent: Agent;
  private readonly url: URL;
  private stopped = false;
  private readonly cancels = new Set<() => void>();

  constructor(
    private readonly config: ClientConfig,
    private readonly opts: WebhookOptions,
    private readonly metrics: AuditMetrics,
    private readonly clock: Clock,
  ) {
    this.url = new URL(config.server);
    this.agent = new Agent({
      keepAlive: true,
      maxSockets: 8,
      ca: config.caPem,
      cert: config.clientCertPem,
      key: config.clientKeyPem,
      rejectUnauthorized: !config.insecureSkipTlsVerify,
    });
  }

  async processEvents(events: EventSnapshot[]): Promise<boolean> {
    const body = encodeEventList(
      events.map((e) => e.toJSON(this.opts.apiVersion)),
      this.opts.apiVersion,
    );
    let delay = this.opts.initialBackoffMs;
    let lastError: unknown;
    for (let step = 0; step < RETRY_STEPS; step++) {
      if (step > 0) {
        if (this.stopped) break;
        const wait = delay * (1 + Math.random() * RETRY_JITTER);
        delay *= RETRY_FACTOR;
        await new Promise<void>((resolve) => {
          const cancel = this.clock.schedule(wait, () => {
            this.cancels.delete(done);
            resolve();
          });
          const done = (): void => {
            cancel();
            resolve();
          };
          this.cancels.add(done);
        });
      }
      try {
        await this.post(body);
        return true;
      } catch (e) {
        lastError = e;
      }
    }
    this.metrics.error(this.name, events.length);
    this.opts.log?.(`Error in audit plugin 'webhook' affecting ${events.length} audit events: ${lastError instanceof Error ? lastError.message : String(lastError)}`);
    return false;
  }

  private post(body: string): Promise<void> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': String(Buffer.byteLength(body)) };
    if (this.config.token) headers['Authorization'] = `Bearer ${this.config.token}`;
    const url = this.url;
    return new Promise((resolve, reject) => {
      const req = request(
        {
          agent: this.agent,
          protocol: url.protocol,
          hostname: url.hostname.replace(/^\[|\]$/g, ''),
          port: url.port || 443,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers,
          servername: this.config.tlsServerName ?? (/^[\d.]+$|:|^\[/.test(url.hostname) ? undefined : url.hostname),
          timeout: this.opts.timeoutMs ?? 30_000,
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            const code = res.statusCode ?? 0;
            if (code >= 200 && code < 300) resolve();
            else reject(new Error(`the server answered HTTP ${code}`));
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error('the audit webhook call timed out')));
      req.on('error', reject);
      req.end(body);
    });
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    for (const cancel of [...this.cancels]) cancel();
    this.agent.destroy();
  }
}
