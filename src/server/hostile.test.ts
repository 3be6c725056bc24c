// A few thousand malformed and hostile requests against a running server: none may crash
// it, none may answer 5xx, and none may change what is stored.
import assert from 'node:assert/strict';
import { Agent, request } from 'node:https';
import { after, before, it } from 'node:test';
import { startTestServer, type TestServer } from '../testing/api-server.js';

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

it('survives malformed HTTP on the TLS connection itself, answering each as it should', async () => {
  const { connect } = await import('node:tls');
  // What the server sends first, and whether it then closes the connection itself.
  const cases: { payload: string; answer: { test(received: string): boolean }; closes: boolean }[] = [
    { payload: 'GARBAGE\r\n\r\n', answer: /^HTTP\/1\.1 400 /, closes: true },
    { payload: 'GET / HTTP/1.1\r\nHost: x\r\n' + 'X-Long: ' + 'a'.repeat(100_000) + '\r\n\r\n', answer: /^HTTP\/1\.1 431 /, closes: true },
    { payload: 'POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', answer: /^HTTP\/1\.1 400 /, closes: true },
    // A preface, then a SETTINGS frame cut short: the server's own SETTINGS frame, then it waits for the rest.
    { payload: 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n' + '\x00\x00\x12\x04\x00\x00\x00\x00\x00' + 'garbage-frames', answer: { test: (received) => received.length >= 9 && received.charCodeAt(3) === 0x04 }, closes: false },
    // A body announced and never sent: a GET does not read it, and is answered.
    { payload: 'GET /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n', answer: /^HTTP\/1\.1 200 /, closes: false },
  ];
  for (const c of cases) {
    const seen = await new Promise<{ got: string; closedByServer: boolean }>((resolve) => {
      let got = '';
      const socket = connect({ host: '127.0.0.1', port: t.port, ca: t.caPem, cert: t.admin.cert, key: t.admin.key, ALPNProtocols: c.payload.startsWith('PRI') ? ['h2'] : ['http/1.1'] }, () => {
        socket.write(c.payload);
      });
      // A safety deadline only: every case ends on the server's answer or close.
      let timedOut = false;
      const deadline = setTimeout(() => {
        timedOut = true;
        socket.destroy();
      }, 10_000);
      const done = (closedByServer: boolean): void => {
        clearTimeout(deadline);
        resolve({ got, closedByServer });
      };
      socket.on('data', (chunk: Buffer) => {
        got += chunk.toString('latin1');
        if (!c.closes && c.answer.test(got)) {
          done(false);
          socket.destroy();
        }
      });
      socket.on('error', () => done(!timedOut));
      socket.on('close', () => done(!timedOut));
    });
    const what = JSON.stringify(c.payload.slice(0, 40));
    assert.ok(c.answer.test(seen.got), `${what}: ${JSON.stringify(seen.got.slice(0, 60))}`);
    assert.equal(seen.closedByServer, c.closes, what);
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

/** One HTTPS request with the path exactly as given (fetch and URL would normalize it). */
function raw(method: string, path: string, opts: { body?: string; contentType?: string; headers?: Record<string, string>; as?: 'admin' | 'anonymous' } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...opts.headers };
    if (opts.body !== undefined) {
      headers['Content-Type'] = opts.contentType ?? 'application/json';
      headers['Content-Length'] = Buffer.byteLength(opts.body);
    }
    const id = opts.as === 'anonymous' ? {} : { cert: t.admin.cert, key: t.admin.key };
    const req = request({ host: '127.0.0.1', port: t.port, method, path, headers, ca: t.caPem, ...id, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

it('takes path segments literally: dot segments, encoded slashes and question marks never reach another object', async () => {
  await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'victim' } } });
  await t.request('POST', '/api/v1/namespaces/victim/configmaps', { body: { metadata: { name: 'keep' }, data: { k: 'v' } } });
  const base = '/api/v1/namespaces/victim/configmaps';
  const invalid = (name: string): string => `Name parameter invalid: "${name}": may not be '${name}'`;
  const cases: [string, string, number, string?][] = [
    ['DELETE', `${base}/..`, 400, invalid('..')],
    ['DELETE', `${base}/%2e%2e`, 400, invalid('..')],
    ['DELETE', `${base}/%2E%2E`, 400, invalid('..')],
    ['DELETE', `${base}/.`, 400, invalid('.')],
    ['DELETE', `${base}/%2e`, 400, invalid('.')],
    ['GET', `${base}/..`, 400, invalid('..')],
    ['GET', `${base}/.`, 400, invalid('.')],
    ['PATCH', `${base}/..`, 400, invalid('..')],
    ['PUT', `${base}/..`, 400, invalid('..')],
    ['DELETE', `${base}/keep%2F..`, 400, `Name parameter invalid: "keep/..": may not contain '/'`],
    ['DELETE', `${base}/..%2f..`, 400, `Name parameter invalid: "../..": may not contain '/'`],
    ['DELETE', `${base}/keep/..`, 404],
    ['DELETE', `${base}/keep/.`, 404],
    ['DELETE', `${base}/x%3F`, 404],
    ['DELETE', `${base}/x%23`, 404],
    ['DELETE', `${base}//keep`, 404],
    ['DELETE', `/api/v1/namespaces/victim/configmaps/../../../victim`, 400, invalid('..')],
    ['DELETE', `/api/v1/namespaces/%2e%2e/configmaps/keep`, 400, `Namespace parameter invalid: "..": may not be '..'`],
    ['PATCH', `/api/v1/namespaces/..`, 400, invalid('..')],
  ];
  const failures: string[] = [];
  for (const [method, path, want, message] of cases) {
    const body = method === 'PATCH' ? '{"metadata":{"labels":{"hit":"yes"}}}' : method === 'PUT' ? '{"metadata":{"name":".."}}' : undefined;
    const r = await raw(method, path, { body, contentType: method === 'PATCH' ? 'application/merge-patch+json' : undefined });
    const got = r.status === want && (message === undefined || (JSON.parse(r.body) as { message?: string }).message === message);
    if (!got) failures.push(`${method} ${path} -> ${r.status} ${r.body.slice(0, 160)}`);
  }
  assert.deepEqual(failures, []);
  const ns = await t.request('GET', '/api/v1/namespaces/victim');
  assert.equal(ns.status, 200);
  assert.equal(ns.json().metadata?.deletionTimestamp, undefined);
  assert.equal(ns.json().metadata?.labels?.hit, undefined);
  const cm = await t.request('GET', `${base}/keep`);
  assert.equal(cm.status, 200);
  assert.equal(cm.json().metadata?.labels?.hit, undefined);
});

it('reads prototype keys in query parameters and header names as plain names', async () => {
  const list = await raw('GET', '/api/v1/namespaces/default/configmaps?__proto__=x&constructor=y&__proto__[polluted]=1&toString=z', {
    headers: { __proto__: 'x', constructor: 'y', hasOwnProperty: 'z' },
  });
  assert.equal(list.status, 200, list.body);
  const get = await raw('GET', '/api/v1/namespaces/default/configmaps/__proto__?watch=__proto__');
  assert.equal(get.status, 404, get.body);
  const labelled = await raw('GET', '/api/v1/namespaces/default/configmaps?labelSelector=constructor%3DtoString&fieldSelector=metadata.name%3D__proto__');
  assert.equal(labelled.status, 200, labelled.body);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(({} as Record<string, unknown>).x, undefined);
});

it('adds no metric series for requests to paths the server does not serve', async () => {
  const series = async (): Promise<number> => (await t.request('GET', '/metrics')).body.split('\n').filter((l) => l.startsWith('apiserver_request')).length;
  // One round first, so that the fixed placeholder series exist.
  for (const as of ['admin', 'anonymous'] as const) await raw('GET', '/apis/g0.x/v1/r0/n/s0', { as });
  const before = await series();
  const agent = new Agent({ keepAlive: true, maxSockets: 16, ca: t.caPem });
  const one = (i: number): Promise<void> =>
    new Promise((resolve) => {
      const paths = [`/apis/g${i}.x/v1/r${i}/n/s${i}`, `/api/v${i}/namespaces/default/r${i}`, `/apis/widgets.testing/v1/namespaces/default/widgets/w/sub${i}`];
      const req = request({ host: '127.0.0.1', port: t.port, method: i % 7 === 0 ? `M${i}` : 'GET', path: paths[i % 3], agent }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', () => resolve());
      req.end();
    });
  for (let i = 1; i <= 500; i += 25) await Promise.all(Array.from({ length: 25 }, (_, k) => one(i + k)));
  agent.destroy();
  const after = await series();
  // The fixed labels of the unknown resource and of other verbs, at most a few buckets' worth.
  assert.ok(after - before <= 60, `metrics grew by ${after - before} series`);
});

it('logs internal errors with the method and path only, never the query', async () => {
  const lines: string[] = [];
  const s = await startTestServer({
    log: (l) => lines.push(l),
    nonResource: async () => {
      throw new Error('handler failed');
    },
  });
  try {
    const r = await s.request('GET', '/custom/thing?token=SECRET-VALUE&password=hunter2');
    assert.equal(r.status, 500);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /^internal error on GET \/custom\/thing: /);
    assert.doesNotMatch(lines.join('\n'), /SECRET-VALUE|hunter2/);
  } finally {
    await s.close();
  }
});
