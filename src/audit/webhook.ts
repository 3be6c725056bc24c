// The webhook backend (`--audit-webhook-config-file`): each batch is POSTed as an
// audit.<domain>/v1 EventList to the server a kubeconfig-format file names, over HTTPS with
// its CA, client certificate or token. A failed POST is retried with exponential backoff
// (the initial delay from `--audit-webhook-initial-backoff`, factor 1.5, jitter 0.2, 5
// tries); events still undelivered are counted as errors of the plugin "webhook". Each POST
// has kube-apiserver's webhook client deadline (30 s, connection to last byte of the answer),
// so a sink that trickles its answer fails the call instead of holding it (and, in blocking
// mode, the request) forever.
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
  /** Per POST, from connecting to the answer's last byte (kube's webhook client: 30 s). */
  timeoutMs?: number;
  log?: (msg: string) => void;
}

/** kube-apiserver's deadline for a webhook call (`defaultRequestTimeout` of its generic webhook). */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 30_000;
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
      let settled = false;
      let answered = false;
      let cancelDeadline = (): void => {};
      const finish = (err?: Error): void => {
        if (settled) return;
        settled = true;
        cancelDeadline();
        if (err) reject(err);
        else resolve();
      };
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
        },
        (res) => {
          answered = true;
          res.resume();
          res.on('end', () => {
            const code = res.statusCode ?? 0;
            if (code >= 200 && code < 300) finish();
            else finish(new Error(`the server answered HTTP ${code}`));
          });
          res.on('error', (e) => finish(e));
          res.on('aborted', () => finish(new Error('the audit webhook closed the connection mid-answer')));
        },
      );
      // One deadline for the whole call, as Go's http.Client.Timeout: an idle timer would
      // never fire for a sink that sends a byte now and then.
      cancelDeadline = this.clock.schedule(this.opts.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS, () => {
        const err = new Error(
          answered
            ? 'unexpected error when reading response body. Please retry. Original error: net/http: request canceled (Client.Timeout or context cancellation while reading body)'
            : `Post "${url.href}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
        );
        finish(err);
        req.destroy(err);
      });
      req.on('error', (e) => finish(e));
      req.end(body);
    });
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    for (const cancel of [...this.cancels]) cancel();
    this.agent.destroy();
  }
}
