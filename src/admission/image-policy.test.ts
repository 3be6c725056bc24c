import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { FakeClock, realClock } from '../apimachinery/clock.js';
import { ApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { startHttpsServer, json, webhookKubeconfig, type Handler, type TestHttpsServer } from '../testing/https-server.js';
import { createCA, issueCert, type TestCert } from '../testing/pki.js';
import {
  BackendError,
  goDuration,
  httpsReviewPoster,
  imagePolicyWebhookFrom,
  imageReviewBody,
  imageReviewSpec,
  ImagePolicyWebhook,
  parseImagePolicyConfig,
  readBackendKubeconfig,
  type ImagePolicyConfig,
  type ReviewPoster,
} from './image-policy.js';
import type { AdmissionAttributes } from './types.js';

/** A FakeClock that moves on to each wake-up as soon as it is asked for: a retry waits no real time. */
class HurriedClock extends FakeClock {
  override schedule(ms: number, fn: () => void): () => void {
    const cancel = super.schedule(ms, fn);
    queueMicrotask(() => this.step(ms));
    return cancel;
  }
}

const PREFIX = 'couldn\'t init admission plugin "ImagePolicyWebhook" from --admission-control-config-file: ';

function podAttrs(pod: KubeObject, opts: { subresource?: string; resource?: string; audit?: Record<string, string> } = {}): AdmissionAttributes {
  const audit = opts.audit;
  return {
    operation: 'CREATE',
    object: pod,
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: opts.resource ?? 'pods' },
    subresource: opts.subresource ?? '',
    namespace: 'team',
    name: pod.metadata?.name ?? '',
    user: { username: 'u', groups: [] },
    dryRun: false,
    warnings: [],
    ...(audit ? { audit: { add: (k: string, v: string) => void (k in audit || (audit[k] = v)) } } : {}),
  };
}

const podWith = (images: string[], annotations?: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name: 'p', ...(annotations ? { annotations } : {}) },
  spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })), ...extra },
});

const config = (over: Partial<ImagePolicyConfig> = {}): ImagePolicyConfig => ({ kubeConfigFile: 'x', allowTtlMs: 300_000, denyTtlMs: 30_000, retryBackoffMs: 1, defaultAllow: false, ...over });

/** A backend that allows images without "evil" and records what it was sent. */
function fakeBackend(answer?: (body: Record<string, unknown>) => unknown): { post: ReviewPoster; calls: Record<string, unknown>[] } {
  const calls: Record<string, unknown>[] = [];
  const post: ReviewPoster = async (body) => {
    calls.push(body);
    if (answer) return answer(body);
    const images = ((body.spec as { containers?: { image: string }[] }).containers ?? []).map((c) => c.image);
    const evil = images.filter((i) => i.includes('evil'));
    return { ...body, status: evil.length ? { allowed: false, reason: `${evil.join(',')} is not allowed` } : { allowed: true } };
  };
  return { post, calls };
}

async function outcome(p: ImagePolicyWebhook, a: AdmissionAttributes): Promise<string> {
  try {
    await p.validate(a);
    return 'ok';
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    return `${e.code} ${e.message}`;
  }
}

test('goDuration prints as Go does', () => {
  const cases: [number, string][] = [[0, '0s'], [1, '1ms'], [500, '500ms'], [1000, '1s'], [1500, '1.5s'], [30_000, '30s'], [300_000, '5m0s'], [1_800_000, '30m0s'], [3_600_000, '1h0m0s'], [-5000, '-5s']];
  for (const [ms, want] of cases) assert.equal(goDuration(ms), want, String(ms));
});

test('configuration: defaults, -1 disables, ranges as Kubernetes checks them, hostile input', () => {
  assert.deepEqual(parseImagePolicyConfig({ imagePolicy: { kubeConfigFile: '/k' } }), { kubeConfigFile: '/k', allowTtlMs: 300_000, denyTtlMs: 30_000, retryBackoffMs: 500, defaultAllow: false });
  assert.deepEqual(parseImagePolicyConfig({ imagePolicy: { kubeConfigFile: '/k', allowTTL: 50, denyTTL: -1, retryBackoff: 250, defaultAllow: true } }), {
    kubeConfigFile: '/k',
    allowTtlMs: 50_000,
    denyTtlMs: 0,
    retryBackoffMs: 250,
    defaultAllow: true,
  });
  const bad: [string, Record<string, unknown>, string][] = [
    ['absent', {}, 'no config specified'],
    ['not nested', { kubeConfigFile: '/k' }, 'imagePolicy: must be an object with kubeConfigFile'],
    ['no kubeconfig', { imagePolicy: { allowTTL: 5 } }, 'imagePolicy.kubeConfigFile: Required value'],
    ['allow too long', { imagePolicy: { kubeConfigFile: '/k', allowTTL: 3600 } }, 'valid value is between 1s and 30m0s, got 1h0m0s'],
    ['negative deny', { imagePolicy: { kubeConfigFile: '/k', denyTTL: -5 } }, 'valid value is between 1s and 30m0s, got -5s'],
    ['backoff too long', { imagePolicy: { kubeConfigFile: '/k', retryBackoff: 300_001 } }, 'valid value is between 1ms and 5m0s, got 5m0.001s'],
    ['fractional', { imagePolicy: { kubeConfigFile: '/k', allowTTL: 1.5 } }, 'imagePolicy.allowTTL: must be an integer, got 1.5'],
    ['string ttl', { imagePolicy: { kubeConfigFile: '/k', allowTTL: '30' } }, 'imagePolicy.allowTTL: must be an integer, got "30"'],
    ['string defaultAllow', { imagePolicy: { kubeConfigFile: '/k', defaultAllow: 'true' } }, 'imagePolicy.defaultAllow: must be a boolean, got "true"'],
  ];
  for (const [name, c, message] of bad) assert.throws(() => parseImagePolicyConfig(c), { message: PREFIX + message }, name);
  // __proto__ is an ordinary key: it neither supplies nor hides the settings.
  const hostile = JSON.parse('{"__proto__":{"imagePolicy":{"kubeConfigFile":"/k"}}}') as Record<string, unknown>;
  assert.throws(() => parseImagePolicyConfig(hostile), { message: PREFIX + 'imagePolicy: must be an object with kubeConfigFile' });
  const nested = JSON.parse('{"imagePolicy":{"kubeConfigFile":"/k","__proto__":{"defaultAllow":true}}}') as Record<string, unknown>;
  assert.equal(parseImagePolicyConfig(nested).defaultAllow, false);
});

test('the review: init, regular and ephemeral images in order, the namespace, only *.image-policy.<domain>/* annotations', () => {
  const pod = podWith(['app:1'], { 'a.image-policy.orch.io/ticket': '123', 'image-policy.orch.io/plain': 'no', 'other.io/x': 'no', 'x.image-policy.orch.io.evil/y': 'no' }, {
    initContainers: [{ name: 'i', image: 'init:1' }],
    ephemeralContainers: [{ name: 'e', image: 'debug:1' }],
  });
  const spec = imageReviewSpec(pod, 'team');
  assert.deepEqual(spec, { containers: [{ image: 'init:1' }, { image: 'app:1' }, { image: 'debug:1' }], annotations: { 'a.image-policy.orch.io/ticket': '123' }, namespace: 'team' });
  assert.deepEqual(imageReviewBody(spec), {
    kind: 'ImageReview',
    apiVersion: 'imagepolicy.orch.io/v1alpha1',
    metadata: { creationTimestamp: null },
    spec: { containers: [{ image: 'init:1' }, { image: 'app:1' }, { image: 'debug:1' }], annotations: { 'a.image-policy.orch.io/ticket': '123' }, namespace: 'team' },
    status: { allowed: false },
  });
  assert.deepEqual(imageReviewBody({ containers: [], annotations: {}, namespace: '' }).spec, {});
});

test('allow and deny with kube\'s messages; other resources and subresources are not reviewed', async () => {
  const backend = fakeBackend();
  const p = new ImagePolicyWebhook({ config: config(), post: backend.post, clock: new FakeClock() });
  const cases: [string, AdmissionAttributes, string][] = [
    ['allowed', podAttrs(podWith(['nginx:1'])), 'ok'],
    ['denied with reason', podAttrs(podWith(['nginx:1', 'evil/image'])), '403 pods "p" is forbidden: image policy webhook backend denied one or more images: evil/image is not allowed'],
    ['status subresource', podAttrs(podWith(['evil/x']), { subresource: 'status' }), 'ok'],
    ['ephemeral containers', podAttrs(podWith(['nginx:1'], undefined, { ephemeralContainers: [{ name: 'd', image: 'evil/debug' }] }), { subresource: 'ephemeralcontainers' }), '403 pods "p" is forbidden: image policy webhook backend denied one or more images: evil/debug is not allowed'],
    ['other resource', podAttrs(podWith(['evil/x']), { resource: 'configmaps' }), 'ok'],
  ];
  for (const [name, a, want] of cases) assert.equal(await outcome(p, a), want, name);
  const silent = new ImagePolicyWebhook({ config: config(), post: fakeBackend(() => ({ status: { allowed: false } })).post, clock: new FakeClock() });
  assert.equal(await outcome(silent, podAttrs(podWith(['x']))), '403 pods "p" is forbidden: one or more images rejected by webhook backend');
  const empty = new ImagePolicyWebhook({ config: config(), post: fakeBackend(() => ({})).post, clock: new FakeClock() });
  assert.equal(await outcome(empty, podAttrs(podWith(['x']))), '403 pods "p" is forbidden: one or more images rejected by webhook backend');
});

test('answers are cached per review for allowTTL and denyTTL; a TTL of -1 caches nothing', async () => {
  const clock = new FakeClock();
  const backend = fakeBackend();
  const p = new ImagePolicyWebhook({ config: config({ allowTtlMs: 60_000, denyTtlMs: 10_000 }), post: backend.post, clock });
  await outcome(p, podAttrs(podWith(['ok:1'])));
  await outcome(p, podAttrs(podWith(['ok:1'])));
  await outcome(p, podAttrs(podWith(['evil:1'])));
  await outcome(p, podAttrs(podWith(['evil:1'])));
  assert.equal(backend.calls.length, 2);
  // Another annotation or namespace is another review.
  await outcome(p, podAttrs(podWith(['ok:1'], { 'a.image-policy.orch.io/x': 'y' })));
  assert.equal(backend.calls.length, 3);
  clock.step(10_000);
  await outcome(p, podAttrs(podWith(['evil:1'])));
  await outcome(p, podAttrs(podWith(['ok:1'])));
  assert.equal(backend.calls.length, 4);
  clock.step(50_000);
  await outcome(p, podAttrs(podWith(['ok:1'])));
  assert.equal(backend.calls.length, 5);

  const uncached = fakeBackend();
  const q = new ImagePolicyWebhook({ config: config({ allowTtlMs: 0, denyTtlMs: 0 }), post: uncached.post, clock });
  for (let i = 0; i < 3; i++) await outcome(q, podAttrs(podWith(['ok:1'])));
  assert.equal(uncached.calls.length, 3);
});

test('status.auditAnnotations become audit annotations under imagepolicywebhook.image-policy.<domain>/, cached answers too', async () => {
  const backend = fakeBackend(() => ({ status: { allowed: true, auditAnnotations: { 'mode': 'audit-only', 'bad': 5 } } }));
  const p = new ImagePolicyWebhook({ config: config(), post: backend.post, clock: new FakeClock() });
  for (let i = 0; i < 2; i++) {
    const audit: Record<string, string> = {};
    assert.equal(await outcome(p, podAttrs(podWith(['x']), { audit })), 'ok');
    assert.deepEqual(audit, { 'imagepolicywebhook.image-policy.orch.io/mode': 'audit-only' });
  }
  assert.equal(backend.calls.length, 1);
});

test('transient failures are retried with backoff, five attempts at most; other failures at once', async () => {
  let n = 0;
  const flaky: ReviewPoster = async () => {
    n++;
    if (n < 3) throw new BackendError('Error contacting webhook: 500', true);
    return { status: { allowed: true } };
  };
  const p = new ImagePolicyWebhook({ config: config(), post: flaky, clock: new HurriedClock(), random: () => 0 });
  assert.equal(await outcome(p, podAttrs(podWith(['x']))), 'ok');
  assert.equal(n, 3);

  n = 0;
  const down: ReviewPoster = async () => {
    n++;
    throw new BackendError('Error contacting webhook: 500', true);
  };
  const q = new ImagePolicyWebhook({ config: config(), post: down, clock: new HurriedClock(), random: () => 0 });
  assert.equal(await outcome(q, podAttrs(podWith(['x']))), '403 pods "p" is forbidden: Error contacting webhook: 500');
  assert.equal(n, 5);

  n = 0;
  const refused: ReviewPoster = async () => {
    n++;
    throw new BackendError('Post "https://x": dial tcp 127.0.0.1:1: connect: connection refused', false);
  };
  const r = new ImagePolicyWebhook({ config: config(), post: refused, clock: new HurriedClock() });
  assert.equal(await outcome(r, podAttrs(podWith(['x']))), '403 pods "p" is forbidden: Post "https://x": dial tcp 127.0.0.1:1: connect: connection refused');
  assert.equal(n, 1);
});

test('the backoff waits retryBackoff, then 1.5 times longer, on the injected clock', async () => {
  const clock = new FakeClock();
  const at: number[] = [];
  const post: ReviewPoster = async () => {
    at.push(clock.now().getTime());
    throw new BackendError('Error contacting webhook: 429', true);
  };
  const p = new ImagePolicyWebhook({ config: config({ retryBackoffMs: 1000, defaultAllow: true }), post, clock, random: () => 0 });
  const done = p.validate(podAttrs(podWith(['x'])));
  for (let i = 0; i < 50; i++) {
    await new Promise((r) => setImmediate(r));
    clock.step(250);
  }
  await done;
  const start = at[0]!;
  assert.deepEqual(at.map((t) => t - start), [0, 1000, 2500, 4750, 8250]);
});

test('backend down: defaultAllow admits, marking the pod and the audit event; otherwise 403 with the failure', async () => {
  const down: ReviewPoster = async () => {
    throw new BackendError('Post "https://hook": dial tcp 127.0.0.1:1: connect: connection refused', false);
  };
  const open = new ImagePolicyWebhook({ config: config({ defaultAllow: true }), post: down, clock: new FakeClock() });
  const pod = podWith(['evil/x'], { keep: 'me' });
  const audit: Record<string, string> = {};
  assert.equal(await outcome(open, podAttrs(pod, { audit })), 'ok');
  assert.deepEqual(pod.metadata?.annotations, { keep: 'me', 'alpha.image-policy.orch.io/failed-open': 'true' });
  assert.deepEqual(audit, { 'imagepolicywebhook.image-policy.orch.io/failed-open': 'true' });
  const bare: KubeObject = { spec: { containers: [{ name: 'a', image: 'x' }] } };
  await open.validate(podAttrs(bare));
  assert.deepEqual(bare.metadata?.annotations, { 'alpha.image-policy.orch.io/failed-open': 'true' });

  const closed = new ImagePolicyWebhook({ config: config({ defaultAllow: false }), post: down, clock: new FakeClock() });
  const pod2 = podWith(['nginx']);
  assert.equal(await outcome(closed, podAttrs(pod2)), '403 pods "p" is forbidden: Post "https://hook": dial tcp 127.0.0.1:1: connect: connection refused');
  assert.equal(pod2.metadata?.annotations, undefined);
  // A body that is not an ImageReview is a failure, not a decision.
  const garbage = new ImagePolicyWebhook({ config: config({ defaultAllow: false }), post: async () => 'nope', clock: new FakeClock() });
  assert.equal(await outcome(garbage, podAttrs(podWith(['x']))), '403 pods "p" is forbidden: the response is not an ImageReview');
  const wrongKind = new ImagePolicyWebhook({ config: config({ defaultAllow: false }), post: async () => ({ kind: 'Status', status: { allowed: true } }), clock: new FakeClock() });
  assert.equal(await outcome(wrongKind, podAttrs(podWith(['x']))), '403 pods "p" is forbidden: the response is a Status, not an ImageReview');
});

// --- over real HTTPS ---

async function startMtlsServer(handler: Handler): Promise<TestHttpsServer> {
  const server = createServer({ cert: serverCert.certPem, key: serverCert.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

let ca: TestCert;
let serverCert: TestCert;
let clientCert: TestCert;
let dir: string;

before(async () => {
  ca = await createCA('image-policy-test-ca');
  serverCert = await issueCert(ca, 'hook', { usage: 'server', ips: ['127.0.0.1'] });
  clientCert = await issueCert(ca, 'apiserver');
  dir = mkdtempSync(join(tmpdir(), 'image-policy-'));
});

after(() => rmSync(dir, { recursive: true, force: true }));

test('over HTTPS: the review is POSTed with the client certificate to the kubeconfig\'s server; non-2xx answers fail', async () => {
  const seen: { path?: string; body?: unknown; cert?: string }[] = [];
  let status = 200;
  // This backend insists on a client certificate from the test CA.
  const hook = await startMtlsServer((req, body, res) => {
    const sock = req.socket as TLSSocket;
    seen.push({ path: req.url, body: JSON.parse(body), cert: String(sock.getPeerCertificate().subject?.CN) });
    if (status === 0) return json(res, 200, { kind: 'ImageReview', status: { allowed: true, reason: 'x'.repeat(4 * 1024 * 1024) } });
    if (status !== 200) return json(res, status, { kind: 'Status' });
    json(res, 200, { apiVersion: 'imagepolicy.orch.io/v1alpha1', kind: 'ImageReview', status: { allowed: true } });
  });
  try {
    const kubeconfig = join(dir, 'hook.kubeconfig');
    writeFileSync(kubeconfig, webhookKubeconfig(`${hook.url}/review`, ca, clientCert));
    const post = httpsReviewPoster(readBackendKubeconfig(kubeconfig));
    const answer = await post(imageReviewBody({ containers: [{ image: 'nginx' }], annotations: {}, namespace: 'team' }));
    assert.deepEqual((answer as { status: unknown }).status, { allowed: true });
    assert.equal(seen[0]!.path, '/review?timeout=30s');
    assert.equal(seen[0]!.cert, 'apiserver');
    assert.deepEqual((seen[0]!.body as { spec: unknown }).spec, { containers: [{ image: 'nginx' }], namespace: 'team' });
    status = 500;
    await assert.rejects(post({}), (e: unknown) => e instanceof BackendError && e.retry && e.message === 'Error contacting webhook: 500');
    status = 403;
    await assert.rejects(post({}), (e: unknown) => e instanceof BackendError && !e.retry && e.message === 'Error contacting webhook: 403');
    // An answer too large to be a review is cut off, not buffered.
    status = 0;
    await assert.rejects(post({}), (e: unknown) => e instanceof BackendError && !e.retry && e.message.endsWith(': response body too large'));
  } finally {
    await hook.close();
  }
  // A server nobody listens on is refused, not retried.
  const gone = join(dir, 'gone.kubeconfig');
  writeFileSync(gone, webhookKubeconfig(hook.url, ca, clientCert));
  await assert.rejects(httpsReviewPoster(readBackendKubeconfig(gone))({}), (e: unknown) => e instanceof BackendError && !e.retry && /connect: connection refused$/.test(e.message));
});

test('over HTTPS: a server certificate from another CA is refused', async () => {
  const other = await createCA('other');
  const hook = await startHttpsServer(await issueCert(other, 'hook', { usage: 'server', ips: ['127.0.0.1'] }), (_req, _body, res) => json(res, 200, { status: { allowed: true } }));
  try {
    const kubeconfig = join(dir, 'other.kubeconfig');
    writeFileSync(kubeconfig, webhookKubeconfig(hook.url, ca));
    await assert.rejects(httpsReviewPoster(readBackendKubeconfig(kubeconfig))({}), /x509: certificate signed by unknown authority/);
  } finally {
    await hook.close();
  }
});

test('a kubeconfig that is missing, malformed or not https refuses the start', () => {
  const http = join(dir, 'http.kubeconfig');
  writeFileSync(http, webhookKubeconfig('http://127.0.0.1:1', ca));
  const garbage = join(dir, 'garbage.kubeconfig');
  writeFileSync(garbage, '{{{');
  const cfg = (file: string) => ({ imagePolicy: { kubeConfigFile: file } });
  assert.throws(() => imagePolicyWebhookFrom(cfg(join(dir, 'absent')), realClock), (e: unknown) => e instanceof Error && e.message.startsWith(`${PREFIX}unable to read kubeConfigFile`));
  assert.throws(() => imagePolicyWebhookFrom(cfg(garbage), realClock), /invalid kubeConfigFile/);
  assert.throws(() => imagePolicyWebhookFrom(cfg(http), realClock), /the image policy backend must use https, got server "http:\/\/127.0.0.1:1"/);
});
