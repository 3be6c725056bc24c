// Black-box tests of the HTTP side: real HTTPS requests against an in-process server.
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { metaGroup } from '../naming/index.js';
import { startTestServer, type TestServer } from '../testing/api-server.js';

let t: TestServer;
before(async () => {
  t = await startTestServer();
  const ns = await t.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } } });
  assert.equal(ns.status, 201, ns.body);
});
after(async () => {
  await t.close();
});

const CM = '/api/v1/namespaces/default/configmaps';
const WIDGETS = '/apis/widgets.testing/v1/namespaces/default/widgets';

describe('authentication and authorization', () => {
  it('answers 401 with a Status to a request without credentials', async () => {
    const r = await t.request('GET', CM, { as: 'anonymous' });
    assert.equal(r.status, 401);
    assert.deepEqual(r.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
  });

  it('answers 403 with the Kubernetes message in a namespace and at the cluster scope', async () => {
    const r = await t.request('GET', CM, { as: 'denied' });
    assert.equal(r.status, 403);
    assert.equal(r.json().message, 'configmaps is forbidden: User "denied-user" cannot list resource "configmaps" in API group "" in the namespace "default"');
    const c = await t.request('GET', '/apis/widgets.testing/v1/gizmos', { as: 'denied' });
    assert.equal(c.json().message, 'gizmos.widgets.testing is forbidden: User "denied-user" cannot list resource "gizmos" in API group "widgets.testing" at the cluster scope');
  });
});

describe('verbs', () => {
  it('creates, gets, updates, patches and deletes a ConfigMap', async () => {
    const created = await t.request('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { a: '1' } } });
    assert.equal(created.status, 201, created.body);
    const obj = created.json();
    assert.equal(obj.metadata?.namespace, 'default');
    assert.ok(obj.metadata?.uid);
    assert.ok(obj.metadata?.resourceVersion);

    const again = await t.request('POST', CM, { body: { metadata: { name: 'c1' } } });
    assert.equal(again.status, 409);
    assert.equal(again.json().reason, 'AlreadyExists');

    const got = await t.request('GET', `${CM}/c1`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.json().data, { a: '1' });

    const stale = await t.request('PUT', `${CM}/c1`, { body: { ...obj, metadata: { ...obj.metadata, resourceVersion: '1' }, data: { a: '2' } } });
    assert.equal(stale.status, 409);
    assert.match(String(stale.json().message), /Operation cannot be fulfilled on configmaps "c1": the object has been modified/);

    const updated = await t.request('PUT', `${CM}/c1`, { body: { ...obj, data: { a: '2' } } });
    assert.equal(updated.status, 200, updated.body);
    assert.deepEqual(updated.json().data, { a: '2' });

    const merged = await t.request('PATCH', `${CM}/c1`, { body: { data: { b: '3' } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(merged.status, 200, merged.body);
    assert.deepEqual(merged.json().data, { a: '2', b: '3' });

    const jp = await t.request('PATCH', `${CM}/c1`, {
      body: [{ op: 'test', path: '/data/a', value: '2' }, { op: 'remove', path: '/data/a' }],
      headers: { 'Content-Type': 'application/json-patch+json' },
    });
    assert.equal(jp.status, 200, jp.body);
    assert.deepEqual(jp.json().data, { b: '3' });

    const deleted = await t.request('DELETE', `${CM}/c1`);
    assert.equal(deleted.status, 200);
    const st = deleted.json();
    assert.equal(st.kind, 'Status');
    assert.equal(st.status, 'Success');
    assert.deepEqual((st.details as Record<string, unknown>).name, 'c1');
    assert.deepEqual((st.details as Record<string, unknown>).kind, 'configmaps');
    assert.equal(st.code, undefined);

    const gone = await t.request('GET', `${CM}/c1`);
    assert.equal(gone.status, 404);
    assert.equal(gone.json().message, 'configmaps "c1" not found');
  });

  it('keeps an object with finalizers until they are removed, answering with the object', async () => {
    await t.request('POST', CM, { body: { metadata: { name: 'fin', finalizers: ['example.com/x'] } } });
    const d = await t.request('DELETE', `${CM}/fin`);
    assert.equal(d.status, 200);
    assert.equal(d.json().kind, 'ConfigMap');
    assert.ok(d.json().metadata?.deletionTimestamp);
    const p = await t.request('PATCH', `${CM}/fin`, { body: { metadata: { finalizers: null } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(p.status, 200, p.body);
    assert.equal((await t.request('GET', `${CM}/fin`)).status, 404);
  });

  it('runs dry-run writes without storing anything, from the query or the DeleteOptions body', async () => {
    const dry = await t.request('POST', `${CM}?dryRun=All`, { body: { metadata: { name: 'dry' } } });
    assert.equal(dry.status, 201);
    assert.equal((await t.request('GET', `${CM}/dry`)).status, 404);
    await t.request('POST', CM, { body: { metadata: { name: 'keep' } } });
    const del = await t.request('DELETE', `${CM}/keep`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] } });
    assert.equal(del.status, 200);
    assert.equal((await t.request('GET', `${CM}/keep`)).status, 200);
    const bad = await t.request('POST', `${CM}?dryRun=Some`, { body: { metadata: { name: 'x' } } });
    assert.equal(bad.status, 422);
  });

  it('rejects a namespace in the body that differs from the path, and a name that differs from the URL', async () => {
    const r = await t.request('POST', CM, { body: { metadata: { name: 'x', namespace: 'other' } } });
    assert.equal(r.status, 400);
    assert.equal(r.json().message, 'the namespace of the provided object does not match the namespace sent on the request');
    await t.request('POST', CM, { body: { metadata: { name: 'named' } } });
    const u = await t.request('PUT', `${CM}/named`, { body: { metadata: { name: 'other' } } });
    assert.equal(u.status, 400);
    assert.equal(u.json().message, 'the name of the object (other) does not match the name on the URL (named)');
  });

  it('applies strategic merge patch to built-in kinds, 415 for kinds without a schema; apply needs a field manager', async () => {
    const smp = await t.request('PATCH', `${CM}/named`, { body: { data: { a: 'b' } }, headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
    assert.equal(smp.status, 200, smp.body);
    assert.deepEqual(smp.json().data, { a: 'b' });
    await t.request('POST', '/apis/widgets.testing/v1/gizmos', { body: { metadata: { name: 'g1' } } });
    const noSchema = await t.request('PATCH', '/apis/widgets.testing/v1/gizmos/g1', { body: { spec: {} }, headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
    assert.equal(noSchema.status, 415);
    assert.equal(noSchema.json().reason, 'UnsupportedMediaType');
    // Apply is served: without a field manager it is refused by its options, not its media type.
    const apply = await t.request('PATCH', `${CM}/named`, { body: { data: {} }, headers: { 'Content-Type': 'application/apply-patch+yaml' } });
    assert.equal(apply.status, 422);
    const weird = await t.request('PATCH', `${CM}/named`, { body: {}, headers: { 'Content-Type': 'text/plain' } });
    assert.equal(weird.status, 415);
  });

  it('serves status and scale subresources and a virtual create-only resource', async () => {
    const w = await t.request('POST', WIDGETS, { body: { metadata: { name: 'w1' }, spec: { size: 2 } } });
    assert.equal(w.status, 201, w.body);
    const s = await t.request('GET', `${WIDGETS}/w1/status`);
    assert.equal(s.status, 200, s.body);
    const echo = await t.request('POST', '/apis/reviews.testing/v1/echoes', { body: { spec: {} } });
    assert.equal(echo.status, 201, echo.body);
    assert.deepEqual(echo.json().status, { echoed: true });
    const list = await t.request('GET', '/apis/reviews.testing/v1/echoes');
    assert.equal(list.status, 405);
    assert.equal(list.json().reason, 'MethodNotAllowed');
  });

  it('warns on requests to a deprecated version, also when the request fails', async () => {
    const { reviewStore } = await import('../testing/api-server.js');
    const old = reviewStore();
    old.definition.version = 'v1beta1';
    old.definition.deprecated = { since: '1.25', removedIn: '1.28', replacement: 'reviews.testing/v1 Echo' };
    t.table.add(old);
    const r = await t.request('POST', '/apis/reviews.testing/v1beta1/echoes', { body: {} });
    assert.equal(r.status, 201, r.body);
    assert.equal(r.headers.warning, '299 - "reviews.testing/v1beta1 Echo is deprecated in v1.25+, unavailable in v1.28+; use reviews.testing/v1 Echo"');
    const bad = await t.request('POST', '/apis/reviews.testing/v1beta1/echoes', { body: '{' });
    assert.equal(bad.status, 400);
    assert.match(String(bad.headers.warning), /is deprecated/);
    t.table.remove({ group: 'reviews.testing', version: 'v1beta1' }, 'echoes');
  });

  it('deletes a collection with a label selector', async () => {
    await t.request('POST', CM, { body: { metadata: { name: 'l1', labels: { team: 'a' } } } });
    await t.request('POST', CM, { body: { metadata: { name: 'l2', labels: { team: 'b' } } } });
    const d = await t.request('DELETE', `${CM}?labelSelector=team%3Da`);
    assert.equal(d.status, 200, d.body);
    assert.equal((await t.request('GET', `${CM}/l1`)).status, 404);
    assert.equal((await t.request('GET', `${CM}/l2`)).status, 200);
  });
});

describe('field validation and admission', () => {
  it('rejects unknown fields under Strict and warns under Warn', async () => {
    const body = { metadata: { name: 'strict1' }, bogus: 1 };
    const strict = await t.request('POST', `${CM}?fieldValidation=Strict`, { body });
    assert.equal(strict.status, 400);
    assert.equal(strict.json().message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"');
    const warn = await t.request('POST', `${CM}?fieldValidation=Warn`, { body });
    assert.equal(warn.status, 201, warn.body);
    assert.equal(warn.headers.warning, '299 - "unknown field \\"bogus\\""');
    const dup = await t.request('POST', `${CM}?fieldValidation=Strict`, { body: '{"metadata":{"name":"d1","name":"d2"}}' });
    assert.equal(dup.status, 400);
    assert.match(String(dup.json().message), /duplicate field "metadata.name"/);
  });

  it('runs mutating admission before the store and validating admission inside it', async () => {
    const seen: string[] = [];
    const admitted = await startTestServer({
      admission: {
        async admit(a) {
          seen.push(`admit ${a.operation} ${a.name}`);
          if (a.object) (a.object.metadata ??= {}).labels = { ...(a.object.metadata?.labels ?? {}), admitted: 'yes' };
        },
        async validate(a) {
          seen.push(`validate ${a.operation} ${a.name}`);
          if (a.name.startsWith('deny-')) throw new (await import('../apimachinery/errors.js')).ApiError(403, 'Forbidden', 'denied by test admission');
        },
      },
    });
    try {
      await admitted.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'default' } } });
      const ok = await admitted.request('POST', CM, { body: { metadata: { name: 'a1' } } });
      assert.equal(ok.status, 201, ok.body);
      assert.equal(ok.json().metadata?.labels?.admitted, 'yes');
      const denied = await admitted.request('POST', CM, { body: { metadata: { name: 'deny-1' } } });
      assert.equal(denied.status, 403);
      assert.equal((await admitted.request('GET', `${CM}/deny-1`)).status, 404);
      const del = await admitted.request('DELETE', `${CM}/a1`);
      assert.equal(del.status, 200);
      assert.ok(seen.includes('admit CREATE a1') && seen.includes('validate CREATE a1') && seen.includes('admit DELETE a1') && seen.includes('validate DELETE a1'), seen.join(', '));
    } finally {
      await admitted.close();
    }
  });
});

describe('routing and errors', () => {
  it('answers unknown paths and resources 404 with a Status', async () => {
    for (const p of ['/nope', '/api/v2', '/apis/nogroup', '/api/v1/nothings', '/apis/widgets.testing/v1/namespaces/default/nothings/x']) {
      const r = await t.request('GET', p);
      assert.equal(r.status, 404, p);
      assert.equal(r.json().kind, 'Status', p);
      assert.equal(r.json().message, 'the server could not find the requested resource', p);
    }
  });

  it('answers unsupported methods 405 with a Status', async () => {
    const r = await t.request('POST', `${CM}/named`, { body: {} });
    assert.equal(r.status, 405);
    assert.equal(r.json().reason, 'MethodNotAllowed');
    const o = await t.request('OPTIONS', CM);
    assert.equal(o.status, 405);
  });

  it('answers malformed bodies 400 and oversized bodies 413', async () => {
    const bad = await t.request('POST', CM, { body: '{"metadata": ', headers: { 'Content-Type': 'application/json' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.json().reason, 'BadRequest');
    const deep = await t.request('POST', CM, { body: '['.repeat(5000) + ']'.repeat(5000) });
    assert.equal(deep.status, 400);
    const big = await t.request('POST', CM, { body: JSON.stringify({ metadata: { name: 'big' }, data: { x: 'a'.repeat(3 * 1024 * 1024) } }) });
    assert.equal(big.status, 413);
    assert.equal(big.json().message, 'Request entity too large: limit is 3145728');
    const yaml = await t.request('POST', CM, { body: 'metadata:\n  name: from-yaml\ndata:\n  k: v\n', headers: { 'Content-Type': 'application/yaml' } });
    assert.equal(yaml.status, 201, yaml.body);
    const ct = await t.request('POST', CM, { body: 'x', headers: { 'Content-Type': 'text/csv' } });
    assert.equal(ct.status, 415);
  });

  it('rejects invalid list option combinations with 400 and Kubernetes\' message', async () => {
    const r = await t.request('GET', `${CM}?resourceVersionMatch=Exact`);
    assert.equal(r.status, 400);
    assert.match(String(r.json().message), /resourceVersionMatch is forbidden unless resourceVersion is provided/);
    const l = await t.request('GET', `${CM}?limit=abc`);
    assert.equal(l.status, 400);
  });

  it('answers 504 past the request deadline and 400 for a malformed timeout', async () => {
    const slow: import('../rest/index.js').RESTStore = {
      definition: { ...(await import('../testing/api-server.js')).reviewStore().definition, group: 'slow.testing', resource: 'sleepers', verbs: ['list'] },
      // Never answers: only the request's deadline ends the request.
      list: () => new Promise(() => {}),
    };
    t.table.add(slow);
    const r = await t.request('GET', '/apis/slow.testing/v1/sleepers?timeout=200ms');
    assert.equal(r.status, 504);
    assert.equal(r.json().message, 'Timeout: request did not complete within requested timeout - context deadline exceeded');
    const bad = await t.request('GET', '/apis/slow.testing/v1/sleepers?timeout=soon');
    assert.equal(bad.status, 400);
    t.table.remove({ group: 'slow.testing', version: 'v1' }, 'sleepers');
  });

  it('aborts the signal a slow handler holds when its deadline passes or its client goes away', async () => {
    const aborted: string[] = [];
    const abortEvents = new EventEmitter();
    let entered: () => void = () => {};
    const slow: import('../rest/index.js').RESTStore = {
      definition: { ...(await import('../testing/api-server.js')).reviewStore().definition, group: 'slow.testing', resource: 'waiters', verbs: ['get'] },
      // Answers only when the request's signal aborts, and says for which object.
      get: (ctx, _ns, name) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            aborted.push(name);
            abortEvents.emit('aborted', name);
            reject(new Error('aborted'));
          });
          entered();
        }),
    };
    t.table.add(slow);
    try {
      const r = await t.request('GET', '/apis/slow.testing/v1/waiters/timed?timeout=100ms');
      assert.equal(r.status, 504);
      assert.deepEqual(aborted, ['timed']);

      const inside = new Promise<void>((resolve) => (entered = resolve));
      const gone = t.stream('/apis/slow.testing/v1/waiters/left', () => {});
      await inside;
      const abortSeen = once(abortEvents, 'aborted');
      gone.close();
      await gone.done;
      await abortSeen;
      assert.deepEqual(aborted, ['timed', 'left']);
    } finally {
      t.table.remove({ group: 'slow.testing', version: 'v1' }, 'waiters');
    }
  });

  it('limits requests in flight with 429 and Retry-After', async () => {
    const limited = await startTestServer({ maxRequestsInFlight: 0, maxMutatingRequestsInFlight: 0 });
    try {
      const r = await limited.request('GET', '/apis/widgets.testing/v1/gizmos', { as: 'denied' });
      assert.equal(r.status, 429);
      assert.equal(r.headers['retry-after'], '1');
      assert.equal(r.json().message, 'Too many requests, please try again later.');
      // Superusers are not limited.
      assert.equal((await limited.request('GET', '/apis/widgets.testing/v1/gizmos')).status, 200);
    } finally {
      await limited.close();
    }
  });
});

describe('content negotiation', () => {
  it('answers YAML, pretty JSON, and 406 for nothing supported', async () => {
    const y = await t.request('GET', `${CM}/named`, { headers: { Accept: 'application/yaml' } });
    assert.equal(y.status, 200);
    assert.equal(y.headers['content-type'], 'application/yaml');
    // Keys sorted, as Go writes YAML (converted from JSON through a map).
    assert.match(y.body, /^apiVersion: v1\ndata:\n {2}a: b\nkind: ConfigMap\nmetadata:\n/);
    const p = await t.request('GET', `${CM}/named?pretty=true`);
    assert.match(p.body, /^\{\n {2}"/);
    const n = await t.request('GET', `${CM}/named`, { headers: { Accept: 'application/xml' } });
    assert.equal(n.status, 406);
    assert.equal(n.json().reason, 'NotAcceptable');
    const fb = await t.request('GET', `${CM}/named`, { headers: { Accept: 'application/xml, application/json' } });
    assert.equal(fb.status, 200);
    assert.equal(fb.headers['content-type'], 'application/json');
  });

  it('answers Tables with the kind columns and PartialObjectMetadata', async () => {
    const accept = `application/json;as=Table;v=v1;g=${metaGroup()},application/json`;
    const r = await t.request('GET', CM, { headers: { Accept: accept } });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], `application/json;as=Table;v=v1;g=${metaGroup()}`);
    const table = r.json();
    assert.equal(table.kind, 'Table');
    assert.deepEqual((table.columnDefinitions as { name: string }[]).map((c) => c.name), ['Name', 'Data', 'Age']);
    const rows = table.rows as { cells: unknown[]; object: { kind: string } }[];
    assert.ok(rows.length > 0);
    assert.equal(rows[0]!.object.kind, 'PartialObjectMetadata');
    const none = await t.request('GET', `${CM}?includeObject=None`, { headers: { Accept: accept } });
    assert.equal((none.json().rows as Record<string, unknown>[])[0]!.object, null);
    const unknown = await t.request('GET', `${CM}?includeObject=Everything`, { headers: { Accept: accept } });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.json().message, 'unrecognized includeObject value: "Everything"');
    const gizmoTable = await t.request('GET', '/apis/widgets.testing/v1/gizmos', { headers: { Accept: `application/json;as=Table;v=v1beta1;g=${metaGroup()}` } });
    assert.equal(gizmoTable.json().apiVersion, `${metaGroup()}/v1beta1`);
    const pom = await t.request('GET', CM, { headers: { Accept: `application/json;as=PartialObjectMetadataList;v=v1;g=${metaGroup()}` } });
    assert.equal(pom.json().kind, 'PartialObjectMetadataList');
    assert.equal((pom.json().items as { kind: string }[])[0]!.kind, 'PartialObjectMetadata');
    const wrongGroup = await t.request('GET', CM, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.example' } });
    assert.equal(wrongGroup.status, 406);
  });
});

describe('HTTP/2', () => {
  it('serves requests and watch streams over HTTP/2', async () => {
    const { connect } = await import('node:http2');
    const session = connect(`https://127.0.0.1:${t.port}`, { ca: t.caPem, cert: t.admin.cert, key: t.admin.key });
    try {
      const get = (path: string): Promise<{ status: number; body: string }> =>
        new Promise((resolve, reject) => {
          const s = session.request({ ':path': path });
          let status = 0;
          let body = '';
          s.on('response', (h) => (status = Number(h[':status'])));
          s.on('data', (c: Buffer) => (body += c.toString()));
          s.on('end', () => resolve({ status, body }));
          s.on('error', reject);
        });
      const r = await get('/version');
      assert.equal(r.status, 200);
      assert.equal((JSON.parse(r.body) as { minor: string }).minor, '27');
      const firstEvent = await new Promise<string>((resolve, reject) => {
        const s = session.request({ ':path': `${CM}?watch=true` });
        s.on('data', (c: Buffer) => {
          resolve(c.toString().split('\n')[0]!);
          s.close();
        });
        s.on('error', reject);
      });
      assert.equal((JSON.parse(firstEvent) as { type: string }).type, 'ADDED');
    } finally {
      session.close();
    }
  });
});

describe('discovery, version, health, metrics', () => {
  it('serves the legacy discovery documents from the table', async () => {
    const api = (await t.request('GET', '/api')).json();
    assert.equal(api.kind, 'APIVersions');
    assert.deepEqual(api.versions, ['v1']);
    const v1 = (await t.request('GET', '/api/v1')).json();
    assert.equal(v1.kind, 'APIResourceList');
    assert.equal(v1.apiVersion, undefined);
    const names = (v1.resources as { name: string }[]).map((r) => r.name);
    assert.ok(names.includes('configmaps') && names.includes('namespaces/finalize'));
    const groups = (await t.request('GET', '/apis')).json();
    assert.ok((groups.groups as { name: string }[]).some((g) => g.name === 'widgets.testing'));
    const gv = (await t.request('GET', '/apis/widgets.testing/v1')).json();
    const widgets = (gv.resources as Record<string, unknown>[]).find((r) => r.name === 'widgets')!;
    assert.deepEqual(widgets.shortNames, ['wd']);
    assert.equal(typeof widgets.storageVersionHash, 'string');
    const scale = (gv.resources as Record<string, unknown>[]).find((r) => r.name === 'widgets/scale')!;
    assert.equal(scale.group, 'autoscaling');
    assert.equal(scale.kind, 'Scale');
  });

  it('serves aggregated discovery when asked for it, and follows table changes', async () => {
    const { discoveryGroup } = await import('../naming/index.js');
    const accept = `application/json;g=${discoveryGroup()};v=v2;as=APIGroupDiscoveryList,application/json;g=${discoveryGroup()};v=v2beta1;as=APIGroupDiscoveryList,application/json`;
    const r = await t.request('GET', '/apis', { headers: { Accept: accept } });
    assert.equal(r.headers['content-type'], `application/json;g=${discoveryGroup()};v=v2beta1;as=APIGroupDiscoveryList`);
    const etag = r.headers.etag as string;
    assert.match(etag, /^"[0-9A-F]{128}"$/);
    assert.equal(r.headers['cache-control'], 'public');
    const unchanged = await t.request('GET', '/apis', { headers: { Accept: accept, 'If-None-Match': etag } });
    assert.equal(unchanged.status, 304);
    assert.equal(unchanged.body.length, 0);
    const items = r.json().items as { metadata: { name: string }; versions: { resources: { resource: string }[] }[] }[];
    const before = items.find((i) => i.metadata.name === 'reviews.testing');
    assert.ok(before);
    t.table.remove({ group: 'reviews.testing', version: 'v1' }, 'echoes');
    const changed = await t.request('GET', '/apis', { headers: { Accept: accept, 'If-None-Match': etag } });
    assert.equal(changed.status, 200, 'a changed table answers the new document');
    const after = changed.json().items as { metadata: { name: string } }[];
    assert.equal(after.find((i) => i.metadata.name === 'reviews.testing'), undefined);
    const { reviewStore } = await import('../testing/api-server.js');
    t.table.add(reviewStore());
  });

  it('reports version 1.27', async () => {
    const v = (await t.request('GET', '/version')).json();
    assert.equal(v.major, '1');
    assert.equal(v.minor, '27');
    assert.equal(v.gitVersion, 'v1.27.16-orch.0.1.0');
  });

  it('answers health endpoints in the Kubernetes format', async () => {
    const r = await t.request('GET', '/readyz');
    assert.equal(r.status, 200);
    assert.equal(r.body, 'ok');
    const v = await t.request('GET', '/readyz?verbose');
    assert.equal(v.body, '[+]ping ok\n[+]log ok\n[+]shutdown ok\nreadyz check passed\n');
    const ex = await t.request('GET', '/livez?verbose&exclude=log&exclude=nope');
    assert.equal(ex.body, '[+]ping ok\n[+]log excluded: ok\nwarn: some health checks cannot be excluded: no matches for "nope"\nlivez check passed\n');
    const one = await t.request('GET', '/livez/ping');
    assert.equal(one.body, 'ok');
    assert.equal((await t.request('GET', '/livez/none')).status, 404);
  });

  it('fails readyz with 503 during the shutdown delay while still serving', async () => {
    const draining = await startTestServer({ shutdownDelayMs: 1500 });
    try {
      const stopping = draining.server.shutdown({ drainTimeoutMs: 2000 });
      const r = await draining.request('GET', '/readyz?verbose');
      assert.equal(r.status, 503);
      assert.match(r.body, /\[-\]shutdown failed: reason withheld\nreadyz check failed\n$/);
      assert.equal((await draining.request('GET', '/livez')).status, 200);
      await stopping;
    } finally {
      await draining.close();
    }
  });

  it('exposes request metrics', async () => {
    const m = await t.request('GET', '/metrics');
    assert.equal(m.status, 200);
    assert.match(m.body, /apiserver_request_total\{verb="LIST",dry_run="",group="",version="v1",resource="configmaps"/);
    assert.match(m.body, /apiserver_request_duration_seconds_bucket/);
  });
});
