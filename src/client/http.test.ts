import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import type { WatchEvent } from '../apimachinery/types.js';
import { HttpClient } from './http.js';

interface Seen {
  method: string;
  url: string;
  contentType?: string;
  authorization?: string;
  body: string;
}

/** A loopback HTTP server that records requests and answers with a scripted handler. */
async function serve(handler: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void): Promise<{ url: string; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ method: req.method!, url: req.url!, contentType: req.headers['content-type'], authorization: req.headers.authorization, body });
      handler(req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

const CM = { group: '', version: 'v1', resource: 'configmaps' };
const DEPLOY = { group: 'apps', version: 'v1', resource: 'deployments' };

test('verbs map to the spec paths, methods and content types', async () => {
  const srv = await serve((req, body, res) => {
    res.setHeader('Content-Type', 'application/json');
    if (req.method === 'DELETE') res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Success', code: 200 }));
    else res.end(body || JSON.stringify({ kind: 'ConfigMap', metadata: { name: 'x' } }));
  });
  const client = new HttpClient({ server: srv.url, namespace: '', token: 'tok' });
  try {
    await client.get(CM, 'ns 1', 'a');
    await client.list(DEPLOY, '', { labelSelector: 'a=b,c!=d', limit: 2, continue: 'tok' });
    await client.create(CM, 'ns', { metadata: { name: 'a' } });
    await client.update(CM, 'ns', { metadata: { name: 'a', resourceVersion: '5' } }, 'status');
    await client.patch(DEPLOY, 'ns', 'd', { spec: { replicas: 2 } }, 'scale');
    assert.equal(await client.delete(CM, 'ns', 'a', { dryRun: true, propagationPolicy: 'Foreground' }), undefined);
    await client.deleteCollection(CM, 'ns', {}, { labelSelector: 'x=y' });
    await client.create({ group: '', version: 'v1', resource: 'serviceaccounts' }, 'ns', { spec: {} }, { name: 'sa', subresource: 'token' });
  } finally {
    client.close();
    await srv.close();
  }
  assert.deepEqual(
    srv.seen.map((s) => `${s.method} ${s.url} ${s.contentType ?? ''}`),
    [
      'GET /api/v1/namespaces/ns%201/configmaps/a ',
      'GET /apis/apps/v1/deployments?labelSelector=a%3Db%2Cc%21%3Dd&limit=2&continue=tok ',
      'POST /api/v1/namespaces/ns/configmaps application/json',
      'PUT /api/v1/namespaces/ns/configmaps/a/status application/json',
      'PATCH /apis/apps/v1/namespaces/ns/deployments/d/scale application/merge-patch+json',
      'DELETE /api/v1/namespaces/ns/configmaps/a application/json',
      'DELETE /api/v1/namespaces/ns/configmaps?labelSelector=x%3Dy application/json',
      'POST /api/v1/namespaces/ns/serviceaccounts/sa/token application/json',
    ],
  );
  assert.equal(srv.seen[0]!.authorization, 'Bearer tok');
  assert.deepEqual(JSON.parse(srv.seen[5]!.body), { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground', dryRun: ['All'] });
});

test('a Status body becomes the ApiError it describes; other bodies keep their code', async () => {
  const srv = await serve((req, _body, res) => {
    if (req.url!.includes('conflict')) {
      res.writeHead(409, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'Operation cannot be fulfilled', reason: 'Conflict', details: { name: 'conflict', kind: 'configmaps' }, code: 409 }));
    } else {
      res.writeHead(503);
      res.end('overloaded');
    }
  });
  const client = new HttpClient({ server: srv.url, namespace: '' });
  try {
    await assert.rejects(client.get(CM, 'ns', 'conflict'), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, 409);
      assert.equal(e.reason, 'Conflict');
      assert.equal(e.status.details?.name, 'conflict');
      return true;
    });
    await assert.rejects(client.get(CM, 'ns', 'other'), (e: unknown) => e instanceof ApiError && e.code === 503 && e.reason === 'ServiceUnavailable' && e.message === 'overloaded');
  } finally {
    client.close();
    await srv.close();
  }
});

test('watch reads a chunked stream event by event, and stops on abort', async () => {
  let respond: http.ServerResponse | undefined;
  const srv = await serve((req, _body, res) => {
    assert.match(req.url!, /watch=true/);
    assert.match(req.url!, /resourceVersion=7/);
    res.writeHead(200, { 'Content-Type': 'application/json' });
    const first = JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } }) + '\n';
    res.write(first.slice(0, 10));
    res.write(first.slice(10) + JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } }) + '\n');
    respond = res;
  });
  const client = new HttpClient({ server: srv.url, namespace: '' });
  const ac = new AbortController();
  const seen: WatchEvent[] = [];
  try {
    for await (const e of client.watch(CM, 'ns', { resourceVersion: '7', allowWatchBookmarks: true }, ac.signal)) {
      seen.push(e);
      if (seen.length === 2) respond!.write(JSON.stringify({ type: 'DELETED', object: { metadata: { name: 'a' } } }));
      if (seen.length === 3) ac.abort();
    }
  } finally {
    client.close();
    await srv.close();
  }
  assert.deepEqual(seen.map((e) => e.type), ['ADDED', 'BOOKMARK', 'DELETED']);
});

test('a watch refused by the server throws its Status', async () => {
  const srv = await serve((_req, _body, res) => {
    res.writeHead(410, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'too old resource version: 1 (5)', reason: 'Expired', code: 410 }));
  });
  const client = new HttpClient({ server: srv.url, namespace: '' });
  try {
    const iterate = async (): Promise<void> => {
      for await (const _ of client.watch(CM, '', { resourceVersion: '1' }, new AbortController().signal)) void _;
    };
    await assert.rejects(iterate(), (e: unknown) => e instanceof ApiError && e.code === 410 && e.reason === 'Expired');
  } finally {
    client.close();
    await srv.close();
  }
});
