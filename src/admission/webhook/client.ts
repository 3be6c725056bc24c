// Calls a webhook: POST of an AdmissionReview over HTTPS to `clientConfig.url` or to a
// service reference, the server's certificate checked against `caBundle` (the system roots
// when empty) and, for a service, against the name `<service>.<namespace>.svc`. Failures
// come back as CallingWebhookError with the text Kubernetes users know from Go's client.
import { Agent, request } from 'node:https';
import { isIP } from 'node:net';
import { ApiError, serviceUnavailable } from '../../apimachinery/errors.js';
import type { ServiceReference, Webhook } from './config.js';
import type { CredentialsResolver, WebhookCredentials } from './credentials.js';
import { stringifyJson } from '../../codec/json.js';
import { CallingWebhookError } from './review.js';

/** Where a service reference leads: a host to connect to (the TLS name stays the service's DNS name). */
export interface ServiceResolver {
  /** Throws an Error whose message says why the service cannot be reached. */
  resolve(ref: ServiceReference): Promise<{ host: string; port: number }>;
}

interface Target {
  /** The URL as messages and the webhook see it, with the `timeout` parameter. */
  url: string;
  host: string;
  port: number;
  path: string;
  /** The name the certificate must carry, when it is a DNS name. */
  servername?: string;
  /** `host:port` (or `host` when a URL names no port): the key of the credentials. */
  authTarget: string;
}

const MAX_RESPONSE_BYTES = 3 * 1024 * 1024;

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Go's client reports an unanswered Status-less error by HTTP code; these are its texts. */
function genericServerResponse(code: number, body: string): ApiError {
  const messages: Record<number, [string, string]> = {
    400: ['BadRequest', 'the server rejected our request for an unknown reason'],
    401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
    403: ['Forbidden', body],
    404: ['NotFound', 'the server could not find the requested resource'],
    405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
    409: ['AlreadyExists', 'the server reported a conflict'],
    422: ['Invalid', 'the server rejected our request due to an error in our request'],
    429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
    503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
    504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
  };
  let [reason, message] = messages[code] ?? ['Unknown', `the server responded with the status code ${code} but did not return more information`];
  if (!messages[code] && code >= 500) {
    reason = 'InternalError';
    message = `an error on the server (${JSON.stringify(body)}) has prevented the request from succeeding`;
  }
  return new ApiError(code, reason, message, { causes: [{ reason: 'UnexpectedServerResponse', message: body }] });
}

/** Node's network and TLS errors in the words of Go's client. */
function describeNetworkError(err: unknown, target: Target): string {
  const e = err as NodeJS.ErrnoException & { reason?: string };
  const addr = `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
  switch (e.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'ECONNRESET':
      return `read tcp ${addr}: read: connection reset by peer`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${target.host}: no such host`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is not valid for ${target.servername ?? target.host}`;
    default:
      return e.message || String(err);
  }
}

async function targetOf(webhook: Webhook, resolver: ServiceResolver | undefined, timeout: string): Promise<Target> {
  const cc = webhook.clientConfig;
  if (cc.url !== undefined) {
    const u = new URL(cc.url);
    u.searchParams.set('timeout', timeout);
    const host = unbracket(u.hostname);
    return {
      url: u.toString(),
      host,
      port: u.port ? Number(u.port) : 443,
      path: `${u.pathname}${u.search}`,
      servername: isIP(host) ? undefined : host,
      authTarget: u.host,
    };
  }
  const svc = cc.service;
  if (!svc) throw new Error('neither service nor URL specified');
  const dnsName = `${svc.name}.${svc.namespace}.svc`;
  const path = `${svc.path.startsWith('/') ? '' : '/'}${svc.path}?timeout=${encodeURIComponent(timeout)}`;
  const url = `https://${dnsName}:${svc.port}${path}`;
  if (!resolver) throw Object.assign(new Error(`Post ${JSON.stringify(url)}: no service resolver`), { url });
  let resolved: { host: string; port: number };
  try {
    resolved = await resolver.resolve(svc);
  } catch (err) {
    throw Object.assign(new Error(`Post ${JSON.stringify(url)}: ${err instanceof Error ? err.message : String(err)}`), { url });
  }
  return { url, host: resolved.host, port: resolved.port, path, servername: dnsName, authTarget: `${dnsName}:${svc.port}` };
}

export interface WebhookCaller {
  /** POSTs the review and resolves with the decoded answer; throws CallingWebhookError. */
  call(webhook: Webhook, review: unknown): Promise<unknown>;
  close(): void;
}

export function webhookCaller(resolver?: ServiceResolver, credentials?: CredentialsResolver): WebhookCaller {
  // One connection pool per trust bundle and client certificate, as a client per configuration would keep.
  const agents = new Map<string, Agent>();
  const agentFor = (ca: string, creds: WebhookCredentials | undefined): Agent => {
    const key = JSON.stringify([ca, creds?.clientCertPem ?? '', creds?.clientKeyPem ?? '']);
    let a = agents.get(key);
    if (!a) {
      a = new Agent({ keepAlive: true, ca: ca || undefined, cert: creds?.clientCertPem, key: creds?.clientKeyPem });
      agents.set(key, a);
    }
    return a;
  };

  async function call(webhook: Webhook, review: unknown): Promise<unknown> {
    const failed = (reason: string, status: ApiError = serviceUnavailable('error calling webhook')) =>
      new CallingWebhookError(webhook.name, `failed to call webhook: ${reason}`, status);
    const timeout = `${webhook.timeoutSeconds}s`;
    let target: Target;
    try {
      target = await targetOf(webhook, resolver, timeout);
    } catch (err) {
      throw failed(err instanceof Error ? err.message : String(err));
    }
    const body = Buffer.from(stringifyJson(review));
    const post = `Post ${JSON.stringify(target.url)}`;
    const signal = AbortSignal.timeout(webhook.timeoutSeconds * 1000);
    const creds = credentials?.(target.authTarget);
    const headers: Record<string, string | number> = {
      'Content-Type': 'application/json',
      Accept: 'application/json, */*',
      'Content-Length': body.byteLength,
    };
    if (creds?.token) headers.Authorization = `Bearer ${creds.token}`;
    const answer = await new Promise<{ code: number; text: string }>((resolve, reject) => {
      const req = request(
        {
          host: target.host,
          port: target.port,
          path: target.path,
          method: 'POST',
          servername: target.servername,
          agent: agentFor(webhook.clientConfig.caBundle, creds),
          signal,
          headers,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.byteLength;
            if (size > MAX_RESPONSE_BYTES) req.destroy(new Error('response body too large'));
            else chunks.push(c);
          });
          res.on('end', () => resolve({ code: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    }).catch((err: unknown) => {
      if (signal.aborted) throw failed(`${post}: context deadline exceeded`);
      throw failed(`${post}: ${describeNetworkError(err, target)}`);
    });
    let decoded: unknown;
    try {
      decoded = answer.text === '' ? undefined : JSON.parse(answer.text);
    } catch {
      decoded = undefined;
    }
    if (answer.code < 200 || answer.code > 299) {
      const s = decoded as { kind?: unknown; code?: unknown; reason?: unknown; message?: unknown } | undefined;
      if (s && s.kind === 'Status' && typeof s.message === 'string') {
        const code = typeof s.code === 'number' ? s.code : answer.code;
        throw failed(s.message, new ApiError(code, typeof s.reason === 'string' ? s.reason : '', s.message));
      }
      const status = genericServerResponse(answer.code, answer.text.trim());
      throw failed(status.message, status);
    }
    if (decoded === undefined) throw failed(`${post}: the response is not a JSON document`);
    return decoded;
  }

  return {
    call,
    close() {
      for (const a of agents.values()) a.destroy();
      agents.clear();
    },
  };
}
