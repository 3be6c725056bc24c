// An admission webhook served by the test process (envtest's WebhookInstallOptions): an
// HTTPS listener on a free loopback port with a certificate of the server's CA, and a
// webhook configuration pointing at it with that CA as its bundle.
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ApiClient } from '../client/types.js';
import type { KubeObject } from '../apimachinery/types.js';
import { fromKubernetesGroup } from '../naming/index.js';

/** The `request` of an AdmissionReview (admission.k8s.io/v1), as the server sends it. */
export interface AdmissionRequest {
  uid: string;
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  name?: string;
  namespace?: string;
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  userInfo: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  object?: Record<string, unknown> | null;
  oldObject?: Record<string, unknown> | null;
  dryRun?: boolean;
  [key: string]: unknown;
}

/** What the handler answers; `patch` is a JSON patch (RFC 6902), mutating webhooks only. */
export interface AdmissionAnswer {
  allowed: boolean;
  status?: { code?: number; message?: string; reason?: string };
  patch?: unknown[];
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

export interface WebhookRule {
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  operations: Array<'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT' | '*'>;
  scope?: 'Cluster' | 'Namespaced' | '*';
}

export interface WebhookOptions {
  /** `validating` (default) or `mutating`. */
  type?: 'validating' | 'mutating';
  /** The configuration's name (and, with `.webhook.test` after it, the webhook's). */
  name: string;
  rules: WebhookRule[];
  handler: (request: AdmissionRequest) => AdmissionAnswer | Promise<AdmissionAnswer>;
  /** `Fail` (default) or `Ignore`. */
  failurePolicy?: 'Fail' | 'Ignore';
  namespaceSelector?: Record<string, unknown>;
  objectSelector?: Record<string, unknown>;
  timeoutSeconds?: number;
}

export interface InstalledWebhook {
  url: string;
  /** The requests the handler received, in order. */
  requests: AdmissionRequest[];
  /** Deletes the configuration and closes the listener. */
  stop(): Promise<void>;
}

const WEBHOOK_KEYS = new Set(['type', 'name', 'rules', 'handler', 'failurePolicy', 'namespaceSelector', 'objectSelector', 'timeoutSeconds']);

function send(res: import('node:http').ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export async function installWebhook(
  client: ApiClient,
  opts: WebhookOptions,
  servingCert: () => Promise<{ certPem: string; keyPem: string }>,
  caPem: string,
): Promise<InstalledWebhook> {
  for (const key of Object.keys(opts)) if (!WEBHOOK_KEYS.has(key)) throw new Error(`installWebhook: unknown option "${key}"`);
  if (typeof opts.name !== 'string' || opts.name === '') throw new Error('installWebhook: option "name" must be a non-empty string');
  if (typeof opts.handler !== 'function') throw new Error('installWebhook: option "handler" must be a function');
  if (!Array.isArray(opts.rules) || opts.rules.length === 0) throw new Error('installWebhook: option "rules" must list at least one rule');
  const type = opts.type ?? 'validating';
  if (type !== 'validating' && type !== 'mutating') throw new Error('installWebhook: option "type" must be "validating" or "mutating"');

  const cert = await servingCert();
  const requests: AdmissionRequest[] = [];
  const listener = createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        let review: { apiVersion?: string; request?: AdmissionRequest };
        try {
          review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof review;
        } catch {
          send(res, 400, { message: 'the body is not JSON' });
          return;
        }
        const request = review.request;
        if (!request) {
          send(res, 400, { message: 'the AdmissionReview has no request' });
          return;
        }
        requests.push(request);
        try {
          const answer = await opts.handler(request);
          const response: Record<string, unknown> = { uid: request.uid, allowed: answer.allowed };
          if (answer.status) response.status = answer.status;
          if (answer.warnings) response.warnings = answer.warnings;
          if (answer.auditAnnotations) response.auditAnnotations = answer.auditAnnotations;
          if (answer.patch) {
            response.patchType = 'JSONPatch';
            response.patch = Buffer.from(JSON.stringify(answer.patch)).toString('base64');
          }
          send(res, 200, { apiVersion: review.apiVersion ?? 'admission.k8s.io/v1', kind: 'AdmissionReview', response });
        } catch (e) {
          send(res, 500, { message: e instanceof Error ? e.message : String(e) });
        }
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `https://127.0.0.1:${(listener.address() as AddressInfo).port}/`;
  const close = (): Promise<void> =>
    new Promise<void>((resolve) => {
      listener.closeAllConnections();
      listener.close(() => resolve());
    });

  const gvr = {
    group: fromKubernetesGroup('admissionregistration.k8s.io'),
    version: 'v1',
    resource: type === 'mutating' ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations',
  };
  const webhook: Record<string, unknown> = {
    name: `${opts.name}.webhook.test`,
    clientConfig: { url, caBundle: Buffer.from(caPem).toString('base64') },
    rules: opts.rules,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    failurePolicy: opts.failurePolicy ?? 'Fail',
  };
  if (opts.namespaceSelector) webhook.namespaceSelector = opts.namespaceSelector;
  if (opts.objectSelector) webhook.objectSelector = opts.objectSelector;
  if (opts.timeoutSeconds !== undefined) webhook.timeoutSeconds = opts.timeoutSeconds;
  const config = {
    apiVersion: `${gvr.group}/v1`,
    kind: type === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
    metadata: { name: opts.name },
    webhooks: [webhook],
  } as KubeObject;
  try {
    await client.create(gvr, '', config);
  } catch (e) {
    await close();
    throw e;
  }
  // The admission plugins learn of configurations from an informer: in-process its watch
  // delivers within a few turns of the event loop, well inside this bound.
  await new Promise((r) => setTimeout(r, 20));

  let stopped: Promise<void> | undefined;
  return {
    url,
    requests,
    stop: () =>
      (stopped ??= (async () => {
        try {
          await client.delete(gvr, '', opts.name);
        } catch {
          // already gone (the server may be stopping)
        }
        await close();
      })()),
  };
}
