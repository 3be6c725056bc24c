// The binary form over HTTPS through the real server, as stock clients use it: typed
// create with a binary body, binary answers (JSON as a fallback), binary watch streams.
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { after, before, test } from 'node:test';
import type { KubeObject } from '../../apimachinery/types.js';
import { metaGroup, protobufMediaType, setFlavor } from '../../naming/index.js';
import { SerializerSet } from '../serializer.js';
import { startTestServer, type TestServer } from '../../testing/api-server.js';
import { createProtobufSerializer, decodeObject, encodeObject, WatchFrameReader } from './index.js';

const STOCK = 'application/vnd.kubernetes.protobuf';

setFlavor('orch');
let srv: TestServer;

before(async () => {
  const serializers = new SerializerSet();
  serializers.register(createProtobufSerializer());
  srv = await startTestServer({ serializers });
});

after(async () => {
  await srv.close();
});

interface RawResponse {
  status: number;
  contentType: string;
  body: Buffer;
}

function send(method: string, path: string, headers: Record<string, string>, body?: Uint8Array): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const h: Record<string, string | number> = { ...headers };
    if (body) h['Content-Length'] = body.length;
    const req = httpsRequest({ host: '127.0.0.1', port: srv.port, method, path, headers: h, ca: srv.caPem, ...srv.admin, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A body as a client reads it: by the Content-Type it was sent with. */
function read(res: RawResponse): KubeObject {
  if (res.contentType.startsWith('application/json')) return JSON.parse(res.body.toString('utf8')) as KubeObject;
  return decodeObject(res.body);
}

test('create namespace and configmap with binary bodies, as kubectl create does', async () => {
  const type = protobufMediaType();
  const name = 'own';
  const ns = await send('POST', '/api/v1/namespaces?fieldManager=kubectl-create&fieldValidation=Strict', { 'Content-Type': type, Accept: `${type},application/json` }, encodeObject({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  assert.equal(ns.status, 201, ns.body.toString('latin1'));
  assert.equal(read(ns).metadata?.name, name);

  const cm = await send(
    'POST',
    `/api/v1/namespaces/${name}/configmaps?fieldManager=kubectl-create&fieldValidation=Strict`,
    { 'Content-Type': type, Accept: `${type},application/json` },
    encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: name }, data: { greeting: 'grüße' } }),
  );
  assert.equal(cm.status, 201, cm.body.toString('latin1'));
  assert.deepEqual(read(cm).data, { greeting: 'grüße' });
});

test('the other flavor\'s binary name is not served: JSON when listed, else 406; its bodies 415', async () => {
  const fallback = await send('GET', '/api/v1/namespaces/own/configmaps/cm', { Accept: `${STOCK},application/json` });
  assert.equal(fallback.status, 200);
  assert.equal(fallback.contentType, 'application/json');
  assert.deepEqual(read(fallback).data, { greeting: 'grüße' });
  const only = await send('GET', '/api/v1/namespaces/own/configmaps/cm', { Accept: STOCK });
  assert.equal(only.status, 406);
  assert.equal(read(only).message, `only the following media types are accepted: application/json, application/yaml, ${protobufMediaType()}`);
  const body = await send('POST', '/api/v1/namespaces/own/configmaps', { 'Content-Type': STOCK, Accept: 'application/json' }, encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stock' } }));
  assert.equal(body.status, 415);
  assert.equal(read(body).reason, 'UnsupportedMediaType');
});

test('get answers in the binary form when asked, JSON otherwise', async () => {
  const bin = await send('GET', '/api/v1/namespaces/own/configmaps/cm', { Accept: `${protobufMediaType()},application/json` });
  assert.equal(bin.status, 200);
  assert.equal(bin.contentType, protobufMediaType());
  const json = await send('GET', '/api/v1/namespaces/own/configmaps/cm', { Accept: 'application/json' });
  assert.deepEqual(read(bin), read(json));
  const missing = await send('GET', '/api/v1/namespaces/own/configmaps/nope', { Accept: protobufMediaType() });
  assert.equal(missing.status, 404);
  assert.equal(read(missing).reason, 'NotFound');
});

test('a body without the prefix is rejected with a Status', async () => {
  const res = await send('POST', '/api/v1/namespaces/own/configmaps', { 'Content-Type': protobufMediaType(), Accept: 'application/json' }, Buffer.from('{"kind":"ConfigMap"}'));
  assert.equal(res.status, 400);
  assert.match(String(read(res).message), /does not appear to be a protobuf message/);
});

test('a watch in the binary form delivers the events a JSON watch delivers', async () => {
  const list = read(await send('GET', '/api/v1/namespaces/own/configmaps', { Accept: 'application/json' }));
  const rv = String((list.metadata as { resourceVersion: string }).resourceVersion);
  const path = `/api/v1/namespaces/own/configmaps?watch=true&resourceVersion=${rv}&timeoutSeconds=5`;
  const binary = watch(path, protobufMediaType());
  // Both watches start at `rv`: the writes below reach them however late they open.
  const json = watch(path, 'application/json');
  // Both watches have answered (they are registered) before the writes.
  await Promise.all([binary.started, json.started]);
  for (let i = 0; i < 3; i++) {
    const res = await send('POST', '/api/v1/namespaces/own/configmaps', { 'Content-Type': 'application/json' }, Buffer.from(JSON.stringify({ metadata: { name: `w${i}` }, data: { i: String(i) } })));
    assert.equal(res.status, 201);
  }
  await send('DELETE', '/api/v1/namespaces/own/configmaps/w1', {});
  const [b, j] = await Promise.all([binary.until(4), json.until(4)]);
  binary.close();
  json.close();
  assert.equal(binary.contentType, `${protobufMediaType()};stream=watch`);
  assert.deepEqual(
    b.map((e) => [e.type, e.object.metadata?.name, e.object.metadata?.resourceVersion, e.object.data]),
    j.map((e) => [e.type, e.object.metadata?.name, e.object.metadata?.resourceVersion, e.object.data]),
  );
});

function watch(path: string, accept: string) {
  const events: { type: string; object: KubeObject }[] = [];
  const waiters: (() => void)[] = [];
  const reader = new WatchFrameReader();
  let contentType = '';
  let answered: () => void = () => {};
  const started = new Promise<void>((resolve) => (answered = resolve));
  const req = httpsRequest({ host: '127.0.0.1', port: srv.port, method: 'GET', path, headers: { Accept: accept }, ca: srv.caPem, ...srv.admin, agent: false }, (res) => {
    contentType = String(res.headers['content-type'] ?? '');
    answered();
    let text = '';
    res.on('data', (c: Buffer) => {
      if (accept === 'application/json') {
        text += c.toString('utf8');
        let nl: number;
        while ((nl = text.indexOf('\n')) >= 0) {
          events.push(JSON.parse(text.slice(0, nl)) as { type: string; object: KubeObject });
          text = text.slice(nl + 1);
        }
      } else events.push(...reader.push(c));
      for (const w of waiters.splice(0)) w();
    });
    res.on('error', () => {});
  });
  req.on('error', () => {});
  req.end();
  return {
    get contentType() {
      return contentType;
    },
    started,
    close: () => req.destroy(),
    until: async (n: number) => {
      const deadline = Date.now() + 5000;
      while (events.length < n && Date.now() < deadline) await new Promise<void>((r) => waiters.push(r as () => void) && setTimeout(r, 100));
      return events.slice(0, n);
    },
  };
}

test('metadata-only lists come in the binary form; tables only in JSON', async () => {
  const pom = await send('GET', '/api/v1/namespaces/own/configmaps', {
    Accept: `${protobufMediaType()};as=PartialObjectMetadataList;g=${metaGroup()};v=v1,application/json`,
  });
  assert.equal(pom.status, 200);
  const list = read(pom) as KubeObject & { items: KubeObject[] };
  assert.equal(list.kind, 'PartialObjectMetadataList');
  assert.ok(list.items.length > 0 && list.items.every((i) => i.metadata?.namespace === 'own' && i.data === undefined));
  // Kubernetes allows the Table transform only into JSON or YAML: asked for a binary Table
  // alone, it answers 406 (the Status itself in JSON).
  const table = await send('GET', '/api/v1/namespaces/own/configmaps', { Accept: `${protobufMediaType()};as=Table;g=${metaGroup()};v=v1` });
  assert.equal(table.status, 406);
  assert.equal(read(table).reason, 'NotAcceptable');
});
