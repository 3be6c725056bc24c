import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, beforeEach, describe, test } from 'node:test';
import { conversionWebhookTransport, tableConverter } from '../../admission/webhook/index.js';
import { isApiError } from '../../apimachinery/errors.js';
import type { KubeObject, WatchEvent } from '../../apimachinery/types.js';
import type { ResourceDefinition, RESTStore } from '../../rest/index.js';
import { MemoryStorage } from '../../storage/index.js';
import { startHttpsServer, json, type TestHttpsServer } from '../../testing/https-server.js';
import { createCA, issueCert, type TestCert } from '../../testing/pki.js';
import { buildResourceTable, type DefaultResourceTable } from '../table.js';
import { TEST_GROUP, requestContext, widgetDefinition, widgetV2Definition } from '../../testing/registry.js';
import { crdConversion, webhookTarget, type CRDConversionSource } from './conversion.js';
import { restoreObjectMeta, type ConversionWebhookTransport } from './webhook-converter.js';

type Json = Record<string, unknown>;
type Review = { apiVersion: string; kind: string; request: { uid: string; desiredAPIVersion: string; objects: Json[] }; response?: unknown };

const REVIEW_GROUP = 'apiextensions.orch.io';
const V1 = `${TEST_GROUP}/v1`;
const V2 = `${TEST_GROUP}/v2`;
const ctx = requestContext();
const noDry = { dryRun: false };

/** v2 calls `spec.size` `spec.dimension`; what the test's webhook converts. */
function convertObject(obj: Json, desired: string): Json {
  const out = structuredClone(obj);
  const spec = (out.spec ?? {}) as Json;
  if (desired === V2 && 'size' in spec) {
    spec.dimension = spec.size;
    delete spec.size;
  }
  if (desired === V1 && 'dimension' in spec) {
    spec.size = spec.dimension;
    delete spec.dimension;
  }
  out.apiVersion = desired;
  return out;
}

function failure(review: Review, message: string): Json {
  return { apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: review.request.uid, result: { status: 'Failure', message } } };
}

function success(review: Review, objects: unknown[]): Json {
  return { apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: review.request.uid, convertedObjects: objects, result: { status: 'Success' } } };
}

/** The webhook's answer to a review; the default converts as the v2 schema wants. */
type Answer = (review: Review, req: IncomingMessage, res: ServerResponse) => unknown;
const converting: Answer = (review) => success(review, review.request.objects.map((o) => convertObject(o, review.request.desiredAPIVersion)));

let ca: TestCert;
let server: TestHttpsServer;
let answer: Answer = converting;
const reviews: Review[] = [];

before(async () => {
  ca = await createCA('conversion-ca');
  const cert = await issueCert(ca, 'conversion', { usage: 'server', ips: ['127.0.0.1'], dnsNames: ['conv.hooks.svc'] });
  server = await startHttpsServer(cert, (req, body, res) => {
    const review = JSON.parse(body) as Review;
    reviews.push(review);
    const out = answer(review, req, res);
    if (out !== undefined) json(res, 200, out);
  });
});

after(async () => {
  await server.close();
});

beforeEach(() => {
  answer = converting;
  reviews.length = 0;
});

const transport = conversionWebhookTransport({
  serviceResolver: { resolve: async () => ({ host: '127.0.0.1', port: Number(new URL(server.url).port) }) },
});
after(() => transport.close());

function crd(reviewVersions: string[] = ['v1', 'v1beta1'], clientConfig?: Json): CRDConversionSource {
  return {
    group: TEST_GROUP,
    storageVersion: 'v1',
    name: `widgets.${TEST_GROUP}`,
    conversion: {
      strategy: 'Webhook',
      webhook: { conversionReviewVersions: reviewVersions, clientConfig: clientConfig ?? { url: server.url, caBundle: Buffer.from(ca.certPem).toString('base64') } },
    },
  };
}

function stored(name: string, spec: Json = { size: 3 }, extra: Json = {}): KubeObject {
  return { apiVersion: V1, kind: 'Widget', metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: '7', ...extra }, spec };
}

async function rejects(p: Promise<unknown>, message: string | RegExp, code = 500): Promise<void> {
  try {
    await p;
  } catch (e) {
    assert.ok(isApiError(e), `expected an ApiError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (code === 500) assert.equal(e.status.reason, undefined);
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    return;
  }
  assert.fail('expected an error');
}

describe('crdConversion', () => {
  test('None rewrites apiVersion and is absent for the storage version', () => {
    const none: CRDConversionSource = { group: TEST_GROUP, storageVersion: 'v1', conversion: { strategy: 'None' } };
    assert.equal(crdConversion(none, 'v1'), undefined);
    const c = crdConversion(none, 'v2');
    assert.ok(c && !c.async);
    assert.equal(c.toStorage({ apiVersion: V2, kind: 'Widget' }).apiVersion, V1);
    assert.equal(c.fromStorage({ apiVersion: V1, kind: 'Widget' }).apiVersion, V2);
  });

  test('Webhook converts even for the storage version (older stored versions) and its synchronous pair refuses', () => {
    const c = crdConversion(crd(), 'v1', { transport });
    assert.ok(c?.async);
    assert.throws(() => c.fromStorage(stored('a')), /needs an asynchronous call/);
  });

  test('the webhook target: url or service (port 443 by default), the CA bundle decoded, 30 s', () => {
    const { target, reviewVersions } = webhookTarget('w.testing', {
      conversionReviewVersions: ['v1beta1'],
      clientConfig: { service: { namespace: 'hooks', name: 'conv' }, caBundle: Buffer.from('PEM').toString('base64') },
    });
    assert.deepEqual(target, { name: 'conversion_webhook_for_w.testing', caBundle: 'PEM', timeoutSeconds: 30, service: { namespace: 'hooks', name: 'conv', path: '', port: 443 } });
    assert.deepEqual(reviewVersions, ['v1beta1']);
  });
});

describe('WebhookConverter reviews', () => {
  for (const [versions, sent] of [
    [['v1', 'v1beta1'], 'v1'],
    [['v1beta1', 'v1'], 'v1beta1'],
    [['v2', 'v1beta1'], 'v1beta1'],
  ] as const) {
    test(`conversionReviewVersions ${JSON.stringify(versions)} sends a ${sent} review`, async () => {
      const c = crdConversion(crd([...versions]), 'v2', { transport })!.async!;
      const out = await c.fromStorage(stored('a'));
      assert.equal(reviews.length, 1);
      const review = reviews[0];
      assert.equal(review.apiVersion, `${REVIEW_GROUP}/${sent}`);
      assert.equal(review.kind, 'ConversionReview');
      assert.equal(review.request.desiredAPIVersion, V2);
      assert.match(review.request.uid, /^[0-9a-f-]{36}$/);
      assert.deepEqual(review.request.objects, [stored('a')]);
      assert.deepEqual(out.spec, { dimension: 3 });
      assert.equal(out.apiVersion, V2);
    });
  }

  test('no review version the server speaks', async () => {
    await rejects(crdConversion(crd(['v2']), 'v2', { transport })!.async!.fromStorage(stored('a')), 'no supported conversion review versions');
    assert.equal(reviews.length, 0);
  });

  test('objects already in the desired version are not sent; none at all makes no call', async () => {
    const c = crdConversion(crd(), 'v2', { transport })!.async!;
    const inV2 = { ...stored('b'), apiVersion: V2, spec: { dimension: 1 } };
    const out = await c.fromStorageAll([stored('a'), inV2, stored('c')]);
    assert.equal(reviews.length, 1);
    assert.deepEqual(reviews[0].request.objects.map((o) => (o.metadata as Json).name), ['a', 'c']);
    assert.deepEqual(out.map((o) => o.spec), [{ dimension: 3 }, { dimension: 1 }, { dimension: 3 }]);
    assert.deepEqual(await c.fromStorageAll([inV2]), [inV2]);
    assert.equal(reviews.length, 1);
  });

  test('a service reference is resolved, the certificate checked for <service>.<namespace>.svc', async () => {
    const c = crdConversion(crd(['v1'], { service: { namespace: 'hooks', name: 'conv', path: '/convert', port: 8443 }, caBundle: Buffer.from(ca.certPem).toString('base64') }), 'v2', {
      transport,
    })!.async!;
    assert.deepEqual((await c.fromStorage(stored('a'))).spec, { dimension: 3 });
    assert.equal(reviews.length, 1);
  });

  test('labels and annotations the webhook changes are kept; every other metadata change is undone', async () => {
    answer = (review) =>
      success(
        review,
        review.request.objects.map((o) => {
          const out = convertObject(o, review.request.desiredAPIVersion);
          out.metadata = { ...(out.metadata as Json), labels: { to: 'v2' }, annotations: { from: 'v1' }, finalizers: ['foo'], generation: 42, garbage: 'x' };
          return out;
        }),
      );
    const out = await crdConversion(crd(), 'v2', { transport })!.async!.fromStorage(stored('a', { size: 3 }, { labels: { old: 'x' }, generation: 2 }));
    assert.deepEqual(out.metadata, { name: 'a', namespace: 'ns', uid: 'uid-a', resourceVersion: '7', generation: 2, labels: { to: 'v2' }, annotations: { from: 'v1' } });
  });
});

describe('conversion webhook failures', () => {
  const what = `conversion webhook for ${V1}, Kind=Widget`;
  const one = (r: Review) => r.request.objects.map((o) => convertObject(o, r.request.desiredAPIVersion));
  const mapFirst = (f: (o: Json) => void): Answer => (r) => {
    const objs = one(r);
    f(objs[0]);
    return success(r, objs);
  };
  const cases: [string, Answer, string | RegExp, string[]?][] = [
    ['a Failure result with a message', (r) => ({ ...success(r, []), response: { uid: r.request.uid, result: { status: 'Failure', message: 'custom webhook conversion error' } } }), `${what} failed: custom webhook conversion error`],
    ['a Failure result without one', (r) => ({ ...success(r, []), response: { uid: r.request.uid, result: { status: 'Failure' } } }), `${what} failed: response.result.status was 'Failure', not 'Success'`],
    ['no response', (r) => ({ apiVersion: r.apiVersion, kind: 'ConversionReview' }), `${what} failed: no response provided`],
    ['another uid (v1)', (r) => ({ ...success(r, one(r)), response: { uid: 'other', convertedObjects: one(r), result: { status: 'Success' } } }), /^conversion webhook for widgets\.testing\/v1, Kind=Widget failed: expected response\.uid="[0-9a-f-]{36}", got "other"$/],
    ['a review of another version (v1)', (r) => ({ ...success(r, one(r)), apiVersion: `${REVIEW_GROUP}/v1beta1` }), `${what} failed: expected webhook response of ${REVIEW_GROUP}/v1, Kind=ConversionReview, got ${REVIEW_GROUP}/v1beta1, Kind=ConversionReview`],
    ['no objects', (r) => success(r, []), `${what} returned 0 objects, expected 1`],
    ['another apiVersion', mapFirst((o) => (o.apiVersion = V1)), `${what} returned invalid object at index 0: invalid groupVersion (expected ${V2}, received ${V1})`],
    ['another kind', mapFirst((o) => (o.kind = 'Gadget')), `${what} returned invalid object at index 0: invalid kind (expected Widget, received Gadget)`],
    ['another name', mapFirst((o) => ((o.metadata as Json).name = 'b')), `${what} returned invalid object: must have the same name: a != b`],
    ['another namespace', mapFirst((o) => ((o.metadata as Json).namespace = 'x')), `${what} returned invalid object: must have the same namespace: ns != x`],
    ['another uid', mapFirst((o) => ((o.metadata as Json).uid = 'u2')), `${what} returned invalid object: must have the same UID: uid-a != u2`],
    // Kubernetes compares the names before it looks at the metadata's shape.
    ['no metadata', mapFirst((o) => delete o.metadata), `${what} returned invalid object: must have the same name: a != `],
    ['metadata of another type', mapFirst((o) => (o.metadata = 'x')), `${what} returned invalid object: must have the same name: a != `],
    ['labels of another type', mapFirst((o) => ((o.metadata as Json).labels = ['a'])), `${what} returned invalid metadata: invalid metadata.labels of type []interface {} in converted object`],
    ['a label that is not a string', mapFirst((o) => ((o.metadata as Json).labels = { n: 1 })), `${what} returned invalid metadata: metadata.labels[n] must be a string, but is int64 in converted object`],
    ['an invalid label key', mapFirst((o) => ((o.metadata as Json).labels = { 'bad key!': 'v' })), /^conversion webhook for widgets\.testing\/v1, Kind=Widget returned invalid metadata: metadata\.labels: Invalid value: "bad key!": name part must consist of/],
    ['an invalid annotation key', mapFirst((o) => ((o.metadata as Json).annotations = { 'bad key!': 'v' })), /^conversion webhook for widgets\.testing\/v1, Kind=Widget returned invalid metadata: metadata\.annotation: Invalid value: "bad key!": name part must consist of/],
    ['an object without kind', mapFirst((o) => delete o.kind), /^Object 'Kind' is missing in '\{"apiVersion":"widgets\.testing\/v2"/],
    [
      'a 400 without a Status',
      (_r, _req, res) => {
        res.writeHead(400, { 'Content-Type': 'text/plain' });
        res.end('nope');
      },
      `${what} failed: the server rejected our request for an unknown reason`,
    ],
    [
      'a Status answer',
      (_r, _req, res) => json(res, 403, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'go away', reason: 'Forbidden', code: 403 }),
      `${what} failed: go away`,
    ],
  ];
  for (const [name, a, message] of cases) {
    test(name, async () => {
      answer = a;
      await rejects(crdConversion(crd(), 'v2', { transport })!.async!.fromStorage(stored('a')), message);
      assert.equal(reviews.length, 1);
    });
  }

  test('v1beta1 answers are not checked for type and uid', async () => {
    answer = (r) => ({ kind: 'Other', response: { uid: 'other', convertedObjects: one(r), result: { status: 'Success' } } });
    const out = await crdConversion(crd(['v1beta1']), 'v2', { transport })!.async!.fromStorage(stored('a'));
    assert.deepEqual(out.spec, { dimension: 3 });
  });

  test('a list is worded as Kubernetes words a list', async () => {
    answer = (r) => {
      const objs = one(r);
      objs[1].kind = 'Gadget';
      return success(r, objs);
    };
    await rejects(
      crdConversion(crd(), 'v2', { transport })!.async!.fromStorageAll([stored('a'), stored('b')]),
      `${what} returned invalid converted object at index 2: invalid kind (expected Widget, received Gadget)`,
    );
  });

  test('an untrusted certificate, a refused connection, a timeout', async () => {
    const other = await createCA('other-ca');
    const untrusted = crd(['v1'], { url: server.url, caBundle: Buffer.from(other.certPem).toString('base64') });
    await rejects(
      crdConversion(untrusted, 'v2', { transport })!.async!.fromStorage(stored('a')),
      `${what} failed: Post "${server.url}/?timeout=30s": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
    );
    const closed = await startHttpsServer(await issueCert(ca, 'x', { usage: 'server', ips: ['127.0.0.1'] }), () => undefined);
    await closed.close();
    const port = new URL(closed.url).port;
    await rejects(
      crdConversion(crd(['v1'], { url: closed.url, caBundle: Buffer.from(ca.certPem).toString('base64') }), 'v2', { transport })!.async!.fromStorage(stored('a')),
      `${what} failed: Post "${closed.url}/?timeout=30s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
    answer = () => undefined; // never answers
    await rejects(
      crdConversion(crd(), 'v2', { transport, timeoutSeconds: 1 })!.async!.fromStorage(stored('a')),
      `${what} failed: Post "${server.url}/?timeout=1s": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
    );
  });

  test('without a transport every conversion fails', async () => {
    await rejects(crdConversion(crd(), 'v2')!.async!.fromStorage(stored('a')), `${what} failed: no client for conversion webhooks is configured`);
  });
});

describe('restoreObjectMeta', () => {
  test('labels removed by the webhook are removed', () => {
    const converted: Json = { metadata: { name: 'a' } };
    assert.equal(restoreObjectMeta(stored('a', {}, { labels: { x: 'y' } }), converted), undefined);
    assert.deepEqual(converted.metadata, { name: 'a', namespace: 'ns', uid: 'uid-a', resourceVersion: '7' });
  });
  test('metadata that is missing or not an object', () => {
    assert.equal(restoreObjectMeta(stored('a'), {}), 'missing metadata in converted object');
    assert.equal(restoreObjectMeta(stored('a'), { metadata: 7 }), 'invalid metadata of type int64 in converted object');
    assert.equal(restoreObjectMeta(stored('a'), { metadata: null }), 'invalid metadata of type <nil> in converted object');
  });
  test('a key named __proto__ is an ordinary key', () => {
    const labels = JSON.parse('{"metadata":{"labels":{"__proto__":"v"}}}') as Json;
    assert.match(restoreObjectMeta(stored('a'), labels) ?? '', /^metadata\.labels: Invalid value: "__proto__": name part must consist of/);
    const annotations = JSON.parse('{"metadata":{"annotations":{"a":"1","__proto__":{}}}}') as Json;
    assert.equal(restoreObjectMeta(stored('a'), annotations), 'metadata.annotations[__proto__] must be a string, but is map[string]interface {} in converted object');
  });
});

describe('custom resources served through a conversion webhook', () => {
  let storage: MemoryStorage;
  let table: DefaultResourceTable;
  let v1: RESTStore;
  let v2: RESTStore;

  function definitions(source: CRDConversionSource, t: ConversionWebhookTransport): ResourceDefinition[] {
    const base = widgetDefinition();
    return [
      { ...base, conversion: crdConversion(source, 'v1', { transport: t }) },
      { ...widgetDefinition(), version: 'v2', preferred: false, conversion: crdConversion(source, 'v2', { transport: t }) },
    ];
  }

  before(() => {
    storage = new MemoryStorage();
    table = buildResourceTable(definitions(crd(), transport), storage, { waitTimeoutMs: 500 });
    v1 = table.lookup({ group: TEST_GROUP, version: 'v1' }, 'widgets')!;
    v2 = table.lookup({ group: TEST_GROUP, version: 'v2' }, 'widgets')!;
  });

  after(async () => {
    await table.stop();
    await storage.close();
  });

  const storedSpec = async (name: string): Promise<unknown> => {
    const { item } = await storage.get(`/registry/${TEST_GROUP}/widgets/ns/${name}`);
    return item ? (JSON.parse(new TextDecoder().decode(item.value)) as Json).spec : undefined;
  };

  test('written in v2, stored in v1, answered and read in v2; the storage version makes no call', async () => {
    const created = await v2.create!(ctx, 'ns', { apiVersion: V2, kind: 'Widget', metadata: { name: 'w1' }, spec: { dimension: 5 } }, noDry);
    assert.equal(created.apiVersion, V2);
    assert.deepEqual(created.spec, { dimension: 5 });
    assert.deepEqual(await storedSpec('w1'), { size: 5 });
    const { item } = await storage.get(`/registry/${TEST_GROUP}/widgets/ns/w1`);
    assert.equal(created.metadata?.resourceVersion, String(item?.modRevision));
    assert.deepEqual(reviews.map((r) => r.request.desiredAPIVersion), [V1, V2]);
    reviews.length = 0;
    const got = await v2.get!(ctx, 'ns', 'w1', {});
    assert.deepEqual(got.spec, { dimension: 5 });
    assert.equal(got.metadata?.resourceVersion, created.metadata?.resourceVersion);
    assert.deepEqual((await v1.get!(ctx, 'ns', 'w1', {})).spec, { size: 5 });
    assert.equal(reviews.length, 1);
  });

  test('update and patch through v2 see and write v2', async () => {
    const res = await v2.update!(ctx, 'ns', 'w1', async (current) => ({ ...current!, spec: { dimension: 6 } }), noDry);
    assert.deepEqual(res.object.spec, { dimension: 6 });
    assert.deepEqual(await storedSpec('w1'), { size: 6 });
  });

  test('a list page of 1,000 objects converts in one review', async () => {
    for (let i = 0; i < 1000; i++) await v1.create!(ctx, 'bulk', { apiVersion: V1, kind: 'Widget', metadata: { name: `b${i}` }, spec: { size: i } }, noDry);
    reviews.length = 0;
    const list = await v2.list!(ctx, 'bulk', {});
    assert.equal(list.items.length, 1000);
    assert.equal(reviews.length, 1);
    assert.equal(reviews[0].request.objects.length, 1000);
    // Kept in key order, each converted: b0, b1, b10, b100, ...
    assert.ok(list.items.every((o) => o.apiVersion === V2 && (o.spec as Json).dimension === Number(o.metadata?.name?.slice(1))));
    assert.ok(list.items.every((o) => o.metadata?.resourceVersion && o.metadata.resourceVersion !== ''));
    reviews.length = 0;
    const page = await v2.list!(ctx, 'bulk', { limit: 10 });
    assert.equal(page.items.length, 10);
    assert.ok(page.metadata.continue);
    assert.equal(reviews.length, 1);
  });

  test('a watch converts its initial state in one review and then each event', async () => {
    const ac = new AbortController();
    const stream = await v2.watch!(requestContext(ac.signal), 'ns', {});
    const events: WatchEvent[] = [];
    const reading = (async () => {
      for await (const ev of stream) {
        events.push(ev);
        if (events.length === 2) break;
      }
    })();
    await v1.create!(ctx, 'ns', { apiVersion: V1, kind: 'Widget', metadata: { name: 'w2' }, spec: { size: 9 } }, noDry);
    await reading;
    ac.abort();
    assert.deepEqual(
      events.map((e) => [e.type, e.object.metadata?.name, e.object.apiVersion, e.object.spec]),
      [
        ['ADDED', 'w1', V2, { dimension: 6 }],
        ['ADDED', 'w2', V2, { dimension: 9 }],
      ],
    );
  });

  test("admission's version conversion waits for the webhook only where one converts", async () => {
    const convert = tableConverter(table);
    const gvr = (version: string) => ({ group: TEST_GROUP, version, resource: 'widgets' });
    reviews.length = 0;
    const pending = convert({ apiVersion: V2, kind: 'Widget', metadata: { name: 'x' }, spec: { dimension: 2 } }, gvr('v2'), gvr('v1'), { group: TEST_GROUP, version: 'v1', kind: 'Widget' });
    assert.ok(pending instanceof Promise);
    assert.deepEqual((await pending).spec, { size: 2 });
    assert.equal(reviews.length, 1);
    const builtin = buildResourceTable([widgetDefinition(), widgetV2Definition()], storage);
    try {
      const sync = tableConverter(builtin)({ apiVersion: V2, kind: 'Widget', metadata: { name: 'x' }, spec: { dimension: 2 } }, gvr('v2'), gvr('v1'), { group: TEST_GROUP, version: 'v1', kind: 'Widget' });
      assert.ok(!(sync instanceof Promise));
      assert.deepEqual(sync.spec, { size: 2 });
    } finally {
      await builtin.stop();
    }
  });

  describe('when the webhook fails', () => {
    beforeEach(() => {
      answer = (r) => failure(r, 'broken');
    });
    const broken = `conversion webhook for ${V2}, Kind=Widget failed: broken`;
    const brokenFromV1 = `conversion webhook for ${V1}, Kind=Widget failed: broken`;

    test('create is a 500 and nothing is stored', async () => {
      await rejects(v2.create!(ctx, 'ns', { apiVersion: V2, kind: 'Widget', metadata: { name: 'nope' }, spec: { dimension: 1 } }, noDry), broken);
      assert.equal(await storedSpec('nope'), undefined);
      // The request converts, the answer does not: still nothing stored.
      answer = (r) => (r.request.desiredAPIVersion === V1 ? converting(r, undefined as never, undefined as never) : failure(r, 'broken'));
      await rejects(v2.create!(ctx, 'ns', { apiVersion: V2, kind: 'Widget', metadata: { name: 'nope' }, spec: { dimension: 1 } }, noDry), brokenFromV1);
      assert.equal(await storedSpec('nope'), undefined);
    });

    test('get, list, update and delete are 500s and change nothing', async () => {
      const before = await storage.get(`/registry/${TEST_GROUP}/widgets/ns/w1`);
      await rejects(v2.get!(ctx, 'ns', 'w1', {}), brokenFromV1);
      await rejects(v2.list!(ctx, 'ns', {}), brokenFromV1);
      await rejects(v2.update!(ctx, 'ns', 'w1', async (current) => ({ ...current!, spec: { dimension: 1 } }), noDry), brokenFromV1);
      await rejects(v2.delete!(ctx, 'ns', 'w1', noDry), brokenFromV1);
      const after = await storage.get(`/registry/${TEST_GROUP}/widgets/ns/w1`);
      assert.equal(after.item?.modRevision, before.item?.modRevision);
    });

    test('a watch ends with an ERROR event carrying the Status', async () => {
      const ac = new AbortController();
      const stream = await v2.watch!(requestContext(ac.signal), 'ns', {});
      const events: WatchEvent[] = [];
      for await (const ev of stream) events.push(ev);
      ac.abort();
      assert.equal(events.length, 1);
      assert.equal(events[0].type, 'ERROR');
      assert.deepEqual(events[0].object, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: brokenFromV1, code: 500 });
    });

    test('a watch event that fails to convert ends the watch', async () => {
      answer = converting;
      const ac = new AbortController();
      const stream = await v2.watch!(requestContext(ac.signal), 'ns', { resourceVersion: String(await storage.revision()) });
      const events: WatchEvent[] = [];
      const reading = (async () => {
        for await (const ev of stream) events.push(ev);
      })();
      answer = (r) => failure(r, 'broken');
      await v1.create!(ctx, 'ns', { apiVersion: V1, kind: 'Widget', metadata: { name: 'w3' }, spec: { size: 1 } }, noDry);
      await reading;
      ac.abort();
      assert.deepEqual(events.map((e) => [e.type, e.object.message]), [['ERROR', brokenFromV1]]);
    });
  });
});
