// ImagePolicyWebhook: every pod write (and ephemeral-container update) is judged by a remote
// service. The plugin POSTs an `imagepolicy.<domain>/v1alpha1` ImageReview naming the pod's
// images, its namespace and its `*.image-policy.<domain>/*` annotations to the server of a
// kubeconfig file, over HTTPS, and admits or refuses as the answer's `status.allowed` says.
// Answers are cached by review (allowed ones for allowTTL, denials for denyTTL); transient
// failures are retried with a growing backoff; when the service cannot be asked at all,
// `defaultAllow` decides, and an admitted pod is marked as failed open (pod annotation and
// audit annotation) so an auditor can find it.
import { readFileSync } from 'node:fs';
import { request, type RequestOptions } from 'node:https';
import type { Clock } from '../apimachinery/clock.js';
import { badRequest } from '../apimachinery/errors.js';
import { getOwn, setOwn } from '../apimachinery/own.js';
import { isPlainObject, type KubeObject } from '../apimachinery/types.js';
import { parseKubeconfig, type ClientConfig } from '../client/kubeconfig.js';
import { domain, domainKey, group } from '../naming/index.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './types.js';
import { admissionForbidden, mapsAt, specOf, stringMapAt, type JsonMap } from './util.js';
import { dirname, resolve } from 'node:path';

export const IMAGE_POLICY_WEBHOOK = 'ImagePolicyWebhook';

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** Bounds and defaults of the configuration, in milliseconds (Kubernetes' values). */
const RETRY_BACKOFF = { min: 1, max: 5 * MINUTE, default: 500 };
const ALLOW_TTL = { min: SECOND, max: 30 * MINUTE, default: 5 * MINUTE };
const DENY_TTL = { min: SECOND, max: 30 * MINUTE, default: 30 * SECOND };
/** How many distinct reviews the answer cache keeps. */
const CACHE_ENTRIES = 1024;
/** Attempts of one review before it counts as failed, and the backoff's growth. */
const ATTEMPTS = 5;
const BACKOFF_FACTOR = 1.5;
const BACKOFF_JITTER = 0.2;
/** The client's timeout for one call (Kubernetes' generic webhook uses 30 s). */
const CALL_TIMEOUT_MS = 30 * SECOND;
const MAX_RESPONSE_BYTES = 3 * 1024 * 1024;

export interface ImagePolicyConfig {
  kubeConfigFile: string;
  /** Milliseconds; 0 keeps nothing. */
  allowTtlMs: number;
  denyTtlMs: number;
  retryBackoffMs: number;
  defaultAllow: boolean;
}

export class ImagePolicyConfigError extends Error {
  constructor(message: string) {
    super(`couldn't init admission plugin "${IMAGE_POLICY_WEBHOOK}" from --admission-control-config-file: ${message}`);
    this.name = 'ImagePolicyConfigError';
  }
}

/** A duration as Go prints one (`500ms`, `1s`, `30m0s`, `1h0m0s`), for whole milliseconds. */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  if (rest < SECOND) return `${sign}${rest}ms`;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / MINUTE);
  rest -= m * MINUTE;
  const s = (rest / SECOND).toFixed(3).replace(/\.?0+$/, '');
  if (h > 0) return `${sign}${h}h${m}m${s}s`;
  if (m > 0) return `${sign}${m}m${s}s`;
  return `${sign}${s}s`;
}

/** -1 disables, 0 (or absent) takes the default, anything else is scaled and must be in range. */
function duration(name: string, raw: unknown, unitMs: number, bounds: { min: number; max: number; default: number }): number {
  if (raw === undefined || raw === null || raw === 0) return bounds.default;
  if (typeof raw !== 'number' || !Number.isSafeInteger(raw)) throw new ImagePolicyConfigError(`${name}: must be an integer, got ${JSON.stringify(raw)}`);
  if (raw === -1) return 0;
  const ms = raw * unitMs;
  if (ms < bounds.min || ms > bounds.max) {
    throw new ImagePolicyConfigError(`valid value is between ${goDuration(bounds.min)} and ${goDuration(bounds.max)}, got ${goDuration(ms)}`);
  }
  return ms;
}

/**
 * The plugin's configuration: `{imagePolicy: {kubeConfigFile, allowTTL (s), denyTTL (s),
 * retryBackoff (ms), defaultAllow}}`, embedded in the AdmissionConfiguration or read from the
 * file its entry names. Pure; throws ImagePolicyConfigError.
 */
export function parseImagePolicyConfig(config: Readonly<Record<string, unknown>>): ImagePolicyConfig {
  if (Object.keys(config).length === 0) throw new ImagePolicyConfigError('no config specified');
  const policy = getOwn(config, 'imagePolicy');
  if (!isPlainObject(policy)) throw new ImagePolicyConfigError('imagePolicy: must be an object with kubeConfigFile');
  const file = getOwn(policy, 'kubeConfigFile');
  if (typeof file !== 'string' || file === '') throw new ImagePolicyConfigError('imagePolicy.kubeConfigFile: Required value');
  const defaultAllow = getOwn(policy, 'defaultAllow') ?? false;
  if (typeof defaultAllow !== 'boolean') throw new ImagePolicyConfigError(`imagePolicy.defaultAllow: must be a boolean, got ${JSON.stringify(defaultAllow)}`);
  return {
    kubeConfigFile: file,
    retryBackoffMs: duration('imagePolicy.retryBackoff', getOwn(policy, 'retryBackoff'), 1, RETRY_BACKOFF),
    allowTtlMs: duration('imagePolicy.allowTTL', getOwn(policy, 'allowTTL'), SECOND, ALLOW_TTL),
    denyTtlMs: duration('imagePolicy.denyTTL', getOwn(policy, 'denyTTL'), SECOND, DENY_TTL),
    defaultAllow,
  };
}

/** The backend's connection: the kubeconfig's current context; the server must use https. */
export function readBackendKubeconfig(path: string): ClientConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ImagePolicyConfigError(`unable to read kubeConfigFile "${path}": ${e instanceof Error ? e.message : String(e)}`);
  }
  let cc: ClientConfig;
  try {
    cc = parseKubeconfig(text, { baseDir: dirname(resolve(path)) });
  } catch (e) {
    throw new ImagePolicyConfigError(`invalid kubeConfigFile "${path}": ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!cc.server.startsWith('https://')) throw new ImagePolicyConfigError(`kubeConfigFile "${path}": the image policy backend must use https, got server "${cc.server}"`);
  return cc;
}

// --- the review ---

export interface ImageReviewSpec {
  containers: { image: string }[];
  annotations: Record<string, string>;
  namespace: string;
}

export interface ImageReviewStatus {
  allowed: boolean;
  reason?: string;
  auditAnnotations?: Record<string, string>;
}

/** Pod annotations sent to the backend: those whose key holds `.image-policy.<domain>/`. */
export function imagePolicyAnnotations(all: Record<string, string>): Record<string, string> {
  const marker = `.image-policy.${domain()}/`;
  const out: Record<string, string> = {};
  for (const key of Object.keys(all).sort()) if (key.includes(marker)) setOwn(out, key, all[key]!);
  return out;
}

/** The pod annotation a failed-open admission leaves: `alpha.image-policy.<domain>/failed-open`. */
export function failedOpenPodAnnotation(): string {
  return domainKey('failed-open', 'alpha.image-policy');
}

/** The prefix of the plugin's audit annotations: `imagepolicywebhook.image-policy.<domain>/`. */
export function imagePolicyAuditPrefix(): string {
  return `${IMAGE_POLICY_WEBHOOK.toLowerCase()}.image-policy.${domain()}/`;
}

/** The review of a pod: init, regular and ephemeral containers' images, in that order. Pure. */
export function imageReviewSpec(pod: KubeObject, namespace: string): ImageReviewSpec {
  const spec = specOf(pod);
  const containers = ['initContainers', 'containers', 'ephemeralContainers'].flatMap((k) =>
    mapsAt(spec, k).map((c) => ({ image: typeof c.image === 'string' ? c.image : '' })),
  );
  return { containers, annotations: imagePolicyAnnotations(stringMapAt(pod.metadata as JsonMap | undefined, 'annotations')), namespace };
}

/** The ImageReview as Go's encoder writes it (empty fields left out). */
export function imageReviewBody(spec: ImageReviewSpec): Record<string, unknown> {
  const s: Record<string, unknown> = {};
  if (spec.containers.length > 0) s.containers = spec.containers;
  if (Object.keys(spec.annotations).length > 0) s.annotations = spec.annotations;
  if (spec.namespace) s.namespace = spec.namespace;
  return { kind: 'ImageReview', apiVersion: `${group('imagepolicy')}/v1alpha1`, metadata: { creationTimestamp: null }, spec: s, status: { allowed: false } };
}

/** The status of the backend's answer; a body without one denies. Throws on a body that is not an ImageReview. */
export function reviewStatus(body: unknown): ImageReviewStatus {
  if (!isPlainObject(body)) throw new Error('the response is not an ImageReview');
  const kind = getOwn(body, 'kind');
  if (kind !== undefined && kind !== 'ImageReview') throw new Error(`the response is a ${String(kind)}, not an ImageReview`);
  const status = getOwn(body, 'status');
  if (!isPlainObject(status)) return { allowed: false };
  const out: ImageReviewStatus = { allowed: getOwn(status, 'allowed') === true };
  const reason = getOwn(status, 'reason');
  if (typeof reason === 'string' && reason !== '') out.reason = reason;
  const audit = stringMapAt(status, 'auditAnnotations');
  if (Object.keys(audit).length > 0) out.auditAnnotations = audit;
  return out;
}

// --- the transport ---

/** A failed call; `retry` when Kubernetes' webhook client would try again. */
export class BackendError extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super(message);
    this.name = 'BackendError';
  }
}

export type ReviewPoster = (body: Record<string, unknown>) => Promise<unknown>;

/** POSTs reviews to the kubeconfig's server with its CA, client certificate or token. */
export function httpsReviewPoster(cc: ClientConfig): ReviewPoster {
  const url = new URL(cc.server);
  url.searchParams.set('timeout', `${CALL_TIMEOUT_MS / SECOND}s`);
  const shown = `Post ${JSON.stringify(url.toString())}`;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port ? Number(url.port) : 443;
  const addr = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  return (body) => {
    const payload = Buffer.from(JSON.stringify(body));
    const headers: Record<string, string | number> = { 'Content-Type': 'application/json', Accept: 'application/json, */*', 'Content-Length': payload.byteLength };
    if (cc.token) headers.Authorization = `Bearer ${cc.token}`;
    const opts: RequestOptions = {
      host,
      port,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers,
      ca: cc.caPem,
      cert: cc.clientCertPem,
      key: cc.clientKeyPem,
      servername: cc.tlsServerName ?? (/^[\d.]+$|:/.test(host) ? undefined : host),
      rejectUnauthorized: !cc.insecureSkipTlsVerify,
      agent: false,
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    };
    return new Promise<unknown>((resolvePost, reject) => {
      const req = request(opts, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.byteLength;
          if (size > MAX_RESPONSE_BYTES) req.destroy(new Error('response body too large'));
          else chunks.push(c);
        });
        res.on('end', () => {
          const code = res.statusCode ?? 0;
          if (code < 200 || code > 299) {
            // Kubernetes retries overload and server errors, and whatever asks to be retried.
            const retry = code === 429 || code === 500 || code === 504 || res.headers['retry-after'] !== undefined;
            reject(new BackendError(`Error contacting webhook: ${code}`, retry));
            return;
          }
          try {
            resolvePost(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch {
            reject(new BackendError(`${shown}: the response is not a JSON document`, false));
          }
        });
        res.on('error', (e) => reject(networkError(e, shown, addr)));
      });
      req.on('error', (e) => reject(networkError(e, shown, addr)));
      req.end(payload);
    });
  };
}

/** Node's errors in the words of Go's client; a reset connection is worth another try. */
function networkError(err: unknown, shown: string, addr: string): BackendError {
  const e = err as NodeJS.ErrnoException;
  switch (e.code) {
    case 'ECONNREFUSED':
      return new BackendError(`${shown}: dial tcp ${addr}: connect: connection refused`, false);
    case 'ECONNRESET':
      return new BackendError(`${shown}: read tcp ${addr}: read: connection reset by peer`, true);
    case 'ABORT_ERR':
      return new BackendError(`${shown}: context deadline exceeded`, false);
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return new BackendError(`${shown}: tls: failed to verify certificate: x509: certificate signed by unknown authority`, false);
    default:
      return new BackendError(`${shown}: ${e.message || String(err)}`, false);
  }
}

// --- the plugin ---

interface CacheEntry {
  status: ImageReviewStatus;
  expires: number;
}

export interface ImagePolicyWebhookOptions {
  config: ImagePolicyConfig;
  post: ReviewPoster;
  clock: Clock;
  /** Random numbers for the backoff's jitter (Math.random when absent). */
  random?: () => number;
}

export class ImagePolicyWebhook implements AdmissionPlugin {
  readonly name = IMAGE_POLICY_WEBHOOK;
  private readonly cache = new Map<string, CacheEntry>();

  constructor(private readonly opts: ImagePolicyWebhookOptions) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.resource.group !== '' || attrs.resource.resource !== 'pods') return;
    if (attrs.subresource !== '' && attrs.subresource !== 'ephemeralcontainers') return;
    const pod = attrs.object;
    if (!pod || !isPlainObject(pod)) throw badRequest('Resource was marked with kind Pod but was unable to be converted');
    const spec = imageReviewSpec(pod, attrs.namespace);
    const key = JSON.stringify(spec);
    let status = this.cached(key);
    if (!status) {
      let body: unknown;
      try {
        body = await this.postWithBackoff(imageReviewBody(spec));
        status = reviewStatus(body);
      } catch (err) {
        this.failed(attrs, pod, err);
        return;
      }
      this.remember(key, status);
    }
    const prefix = imagePolicyAuditPrefix();
    for (const [k, v] of Object.entries(status.auditAnnotations ?? {})) attrs.audit?.add(`${prefix}${k}`, v);
    if (status.allowed) return;
    throw admissionForbidden(
      attrs,
      status.reason ? `image policy webhook backend denied one or more images: ${status.reason}` : 'one or more images rejected by webhook backend',
    );
  }

  /** The backend could not be asked: `defaultAllow` admits (marking the pod), else 403 with the failure. */
  private failed(attrs: AdmissionAttributes, pod: KubeObject, err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    if (!this.opts.config.defaultAllow) throw admissionForbidden(attrs, message);
    attrs.audit?.add(`${imagePolicyAuditPrefix()}failed-open`, 'true');
    const meta = (pod.metadata ??= {});
    const annotations = isPlainObject(meta.annotations) ? (meta.annotations as Record<string, string>) : {};
    setOwn(annotations, failedOpenPodAnnotation(), 'true');
    meta.annotations = annotations;
  }

  private cached(key: string): ImageReviewStatus | undefined {
    const hit = this.cache.get(key);
    if (!hit) return undefined;
    if (hit.expires <= this.opts.clock.now().getTime()) {
      this.cache.delete(key);
      return undefined;
    }
    return hit.status;
  }

  private remember(key: string, status: ImageReviewStatus): void {
    const ttl = status.allowed ? this.opts.config.allowTtlMs : this.opts.config.denyTtlMs;
    if (ttl <= 0) return;
    this.cache.delete(key);
    this.cache.set(key, { status, expires: this.opts.clock.now().getTime() + ttl });
    if (this.cache.size > CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
  }

  /** Up to five attempts while failures are transient, waiting retryBackoff, then 1.5 times longer each time. */
  private async postWithBackoff(body: Record<string, unknown>): Promise<unknown> {
    const random = this.opts.random ?? Math.random;
    let wait = this.opts.config.retryBackoffMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.opts.post(body);
      } catch (err) {
        if (!(err instanceof BackendError) || !err.retry || attempt >= ATTEMPTS) throw err;
      }
      const jittered = wait * (1 + BACKOFF_JITTER * random());
      await new Promise<void>((done) => this.opts.clock.schedule(jittered, done));
      wait *= BACKOFF_FACTOR;
    }
  }
}

/** Builds the plugin from its configuration entry; reads the kubeconfig now, so a bad one stops the start. */
export function imagePolicyWebhookFrom(config: Readonly<Record<string, unknown>>, clock: Clock): ImagePolicyWebhook {
  const parsed = parseImagePolicyConfig(config);
  return new ImagePolicyWebhook({ config: parsed, post: httpsReviewPoster(readBackendKubeconfig(parsed.kubeConfigFile)), clock });
}
