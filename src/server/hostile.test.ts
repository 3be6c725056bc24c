// A few thousand malformed and hostile requests against a running server: none may crash
// it, none may answer 5xx, and none may change what is stored.
import assert from 'node:assert/strict';
import { Agent, request } from 'node:https';
import { after, before, it } from 'node:test';
import { startTestServer, type TestServer } from './testing.js';

let t: TestServer;
before(async () => {
  t = await startTestServer();
  await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'default' } } });
  await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'keep', labels: { a: 'b' } }, data: { k: 'v' } } });
});
after(async () => {
  await t.close();
});

/** Deterministic pseudo-random numbers (mulberry32), so a failure can be replayed. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

interface Hostile {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

const BAD_NAME = 'Bad_Name!';

function hostileRequests(n: number, rand: () => number): Hostile[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const bytes = (len: number): Buffer => Buffer.from(Array.from({ length: len }, () => Math.floor(rand() * 256)));
  const deep = (d: number): string => '{"a":'.repeat(d) + '1' + '}'.repeat(d);
  const bodies: (() => Buffer)[] = [
    () => bytes(1 + Math.floor(rand() * 200)),
    () => Buffer.from('{"metadata": {"name": "x"'),
    () => Buffer.from(deep(2000)),
    () => Buffer.from('['.repeat(100_000)),
    () => Buffer.from('[1,2,3]'),
    () => Buffer.from('"just a string"'),
    () => Buffer.from('null'),
    () => Buffer.from(JSON.stringify({ apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: BAD_NAME } })),
    () => Buffer.from(JSON.stringify({ kind: 'Secret', metadata: { name: 'x' } })),
    () => Buffer.from(JSON.stringify({ metadata: { name: 'x', namespace: 'elsewhere' } })),
    () => Buffer.from(JSON.stringify({ metadata: { name: BAD_NAME }, data: { k: 'v' } })),
    () => Buffer.from(JSON.stringify({ metadata: 'not an object' })),
    () => Buffer.from(JSON.stringify({ metadata: { name: BAD_NAME, labels: { 'bad key!': 'v' } } })),
    () => Buffer.from(JSON.stringify({ metadata: { name: BAD_NAME }, data: { k: 1e308 } })),
    () => Buffer.from('a: &a ["x","x","x"]\nb: &b [*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c]\n'),
    () => Buffer.from('\uFEFF{"metadata":{"name":"' + BAD_NAME + '"}}'),
    () => Buffer.from('{"__proto__":{"polluted":true},"metadata":{"name":"' + BAD_NAME + '"}}'),
  ];
  const contentTypes = ['application/json', 'application/yaml', 'text/plain', 'application/json; charset=utf-16', ';;;', 'application/vnd.unknown+json', '*/*'];
  const accepts = ['application/json', 'application/xml', ';as=Table', 'application/json;as=Table;g=x;v=v9', '*/*;q=0', 'application/json;as=PartialObjectMetadata;g=;v=', ',,,,', 'a/b,c/d,e/f'];
  const queries = [
    'limit=-5',
    'limit=abc',
    'timeoutSeconds=x',
    'watch=maybe&timeoutSeconds=-1',
    'labelSelector=a%20in%20(',
    'labelSelector=!!!',
    'fieldSelector=spec.nope%3Dx',
    'fieldSelector=%3D%3D%3D',
    'resourceVersion=abc',
    'resourceVersionMatch=Sometimes&resourceVersion=1',
    'continue=not-a-token',
    'dryRun=Maybe',
    'fieldValidation=Loose',
    'pretty=banana',
    'propagationPolicy=Sideways',
    'gracePeriodSeconds=soon',
    'includeObject=Everything',
  ];
  const paths = [
    '/api/v1/namespaces/default/configmaps',
    '/api/v1/namespaces/default/configmaps/missing',
    '/api/v1/namespaces/%ZZ/configmaps',
    '/api/v1/namespaces/default/configmaps/..%2f..',
    '/api/v1/namespaces//configmaps',
    '/apis/widgets.testing/v1/namespaces/default/widgets/missing/status',
    '/apis/widgets.testing/v1/namespaces/default/widgets/missing/nosuchsub',
    '/api/v1/watch',
    '/apis/../../etc/passwd',
    '/' + 'a/'.repeat(2000),
    '/api/v1/namespaces/default/configmaps/' + 'x'.repeat(5000),
    '/apis/reviews.testing/v1/echoes/x',
    '/livez/%00',
    '/openapi/v9',
  ];
  const out: Hostile[] = [];
  for (let i = 0; i < n; i++) {
    const kind = i % 6;
    const headers: Record<string, string> = { Accept: pick(accepts) };
    if (kind === 0) {
      out.push({ method: 'POST', path: '/api/v1/namespaces/default/configmaps?' + (rand() < 0.5 ? pick(queries) : ''), headers: { ...headers, 'Content-Type': pick(contentTypes) }, body: pick(bodies)() });
    } else if (kind === 1) {
      const method = pick(['PUT', 'PATCH']);
      const path = '/api/v1/namespaces/default/configmaps/' + pick(['missing', 'keep']) + '?' + pick(queries);
      const contentType = pick([...contentTypes, 'application/json-patch+json', 'application/merge-patch+json']);
      let body = pick(bodies)();
      // A null JSON patch is a valid patch without operations, not a hostile one.
      if (method === 'PATCH' && contentType === 'application/json-patch+json' && body.toString() === 'null') body = Buffer.from('[1,2,3]');
      out.push({ method, path, headers: { ...headers, 'Content-Type': contentType }, body });
    } else if (kind === 2) {
      out.push({ method: 'GET', path: pick(paths) + '?' + pick(queries) + '&' + pick(queries), headers });
    } else if (kind === 3) {
      out.push({ method: pick(['DELETE', 'TRACE', 'OPTIONS', 'PROPFIND', 'GET', 'POST']), path: pick(paths) + '?' + pick(queries), headers: { ...headers, 'Content-Type': pick(contentTypes) }, body: rand() < 0.5 ? pick(bodies)() : undefined });
    } else if (kind === 4) {
      // Patches of the stored object that must fail: failing tests, bad paths, renames.
      const patches = [
        ['application/json-patch+json', '[{"op":"test","path":"/data/k","value":"other"},{"op":"remove","path":"/data"}]'],
        ['application/json-patch+json', '[{"op":"move","from":"/nope","path":"/x"}]'],
        ['application/json-patch+json', '[{"op":"replace","path":"/metadata/name","value":"renamed"}]'],
        ['application/json-patch+json', '{"op":"add"}'],
        ['application/merge-patch+json', '{"metadata":{"name":"renamed"}}'],
        ['application/merge-patch+json', '{"metadata":{"resourceVersion":"1"},"data":{"k":"changed"}}'],
        ['application/merge-patch+json', '[]'],
        ['application/strategic-merge-patch+json', '{"metadata":{"name":"renamed"}}'],
        ['application/apply-patch+yaml', 'data: {k: changed}'],
      ] as const;
      const [ct, body] = pick(patches);
      out.push({ method: 'PATCH', path: '/api/v1/namespaces/default/configmaps/keep', headers: { ...headers, 'Content-Type': ct }, body: Buffer.from(body) });
    } else {
      // Deletes whose options are invalid, and collection deletes with invalid selectors.
      out.push({
        method: 'DELETE',
        path: pick([
          '/api/v1/namespaces/default/configmaps/keep?propagationPolicy=Sideways',
          '/api/v1/namespaces/default/configmaps/keep?dryRun=Maybe',
          '/api/v1/namespaces/default/configmaps?labelSelector=a%20in%20(',
          '/api/v1/namespaces/default/configmaps?fieldSelector=spec.nope%3Dx',
        ]),
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: rand() < 0.5 ? Buffer.from('{"kind":"DeleteOptions","preconditions":{"uid":"not-the-uid"},"propagationPolicy":"Sideways"}') : undefined,
      });
    }
  }
  return out;
}

it('survives malformed HTTP on the TLS connection itself', async () => {
  const { connect } = await import('node:tls');
  const payloads = [
    'GARBAGE\r\n\r\n',
    'GET / HTTP/1.1\r\nHost: x\r\n' + 'X-Long: ' + 'a'.repeat(100_000) + '\r\n\r\n',
    'POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n' + '\x00\x00\x12\x04\x00\x00\x00\x00\x00' + 'garbage-frames',
    'GET /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n',
  ];
  for (const p of payloads) {
    await new Promise<void>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: t.port, ca: t.caPem, cert: t.admin.cert, key: t.admin.key, ALPNProtocols: p.startsWith('PRI') ? ['h2'] : ['http/1.1'] }, () => {
        socket.write(p);
        setTimeout(() => socket.destroy(), 200);
      });
      socket.on('data', () => {});
      socket.on('error', () => resolve());
      socket.on('close', () => resolve());
    });
  }
  assert.equal((await t.request('GET', '/readyz')).status, 200);
});

it('survives thousands of hostile requests with no 5xx and no change to stored state', async () => {
  const before = await t.storage.list('/');
  const beforeRevision = await t.storage.revision();
  const agent = new Agent({ keepAlive: true, maxSockets: 32, ca: t.caPem, cert: t.admin.cert, key: t.admin.key });
  const send = (h: Hostile): Promise<{ status: number; body: string }> =>
    new Promise((resolve) => {
      const headers: Record<string, string | number> = { ...h.headers };
      if (h.body) headers['Content-Length'] = h.body.byteLength;
      const req = request({ host: '127.0.0.1', port: t.port, method: h.method, path: h.path, headers, agent }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body.length < 2000 ? (body += c.toString()) : undefined));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', () => resolve({ status: -1, body: '' }));
      });
      req.setTimeout(10_000, () => req.destroy());
      req.on('error', (e) => resolve({ status: -1, body: String(e) }));
      req.end(h.body);
    });
  const requests = hostileRequests(3000, rng(20261122));
  const failures: string[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < requests.length) {
      const h = requests[next++]!;
      const r = await send(h);
      const ok = (r.status >= 400 && r.status < 500) || r.status === 200;
      if (!ok || r.status >= 500) failures.push(`${h.method} ${h.path.slice(0, 120)} -> ${r.status} ${r.body.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  agent.destroy();
  assert.deepEqual(failures.slice(0, 10), []);

  const health = await t.request('GET', '/readyz');
  assert.equal(health.status, 200);
  assert.equal(await t.storage.revision(), beforeRevision);
  const afterList = await t.storage.list('/');
  assert.deepEqual(
    afterList.items.map((i) => [i.key, i.modRevision]),
    before.items.map((i) => [i.key, i.modRevision]),
  );
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});
