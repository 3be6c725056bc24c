// A failure Status is written in the media type the client negotiated (binary, YAML), as
// kube-apiserver encodes errors; JSON when no Accept entry can carry a Status.
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { createProtobufSerializer, decodeObject } from '../codec/protobuf/index.js';
import { SerializerSet } from '../codec/serializer.js';
import { protobufMediaType, setFlavor } from '../naming/index.js';
import { startTestServer, type TestServer } from '../testing/api-server.js';

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

const CM = '/api/v1/namespaces/default/configmaps';

interface Raw {
  status: number;
  contentType: string;
  body: Buffer;
}

function send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const h: Record<string, string | number> = { ...headers };
    if (body !== undefined) h['Content-Length'] = Buffer.byteLength(body);
    const req = httpsRequest({ host: '127.0.0.1', port: srv.port, method, path, headers: h, ca: srv.caPem, ...srv.admin, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const JSON_BODY = { 'Content-Type': 'application/json' };

/** The three failures of the items: a 404, a 409 and a body that is not JSON. */
async function failures(accept: string): Promise<{ json: Raw; other: Raw }[]> {
  await send('POST', CM, JSON_BODY, '{"metadata":{"name":"taken"}}');
  const cases: [string, string, string | undefined][] = [
    ['GET', `${CM}/missing`, undefined],
    ['POST', CM, '{"metadata":{"name":"taken"}}'],
    ['POST', CM, '{"metadata":'],
  ];
  const out: { json: Raw; other: Raw }[] = [];
  for (const [method, path, body] of cases) {
    const json = await send(method, path, { ...JSON_BODY, Accept: 'application/json' }, body);
    const other = await send(method, path, { ...JSON_BODY, Accept: accept }, body);
    out.push({ json, other });
  }
  return out;
}

describe('errors in the negotiated media type', () => {
  it('a client accepting only the binary type gets its 404, 409 and decode error in it', async () => {
    const got = await failures(protobufMediaType());
    assert.deepEqual(got.map((g) => g.other.status), [404, 409, 400]);
    for (const { json, other } of got) {
      assert.equal(other.contentType, protobufMediaType());
      assert.deepEqual(decodeObject(new Uint8Array(other.body)), JSON.parse(json.body.toString()));
    }
  });

  it('a client accepting only YAML gets them in YAML', async () => {
    const got = await failures('application/yaml');
    assert.deepEqual(got.map((g) => g.other.status), [404, 409, 400]);
    for (const { json, other } of got) {
      assert.equal(other.contentType, 'application/yaml');
      assert.deepEqual(parseYaml(other.body.toString()), JSON.parse(json.body.toString()));
    }
  });

  it('the first acceptable entry wins; Table entries do not carry a Status', async () => {
    const r = await send('GET', `${CM}/missing`, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io, application/yaml' });
    assert.equal(r.status, 404);
    assert.equal(r.contentType, 'application/yaml');
  });

  it('an Accept header nothing can satisfy gets a 406 as indented JSON', async () => {
    const r = await send('GET', `${CM}/missing`, { Accept: 'application/x-nothing' });
    assert.equal(r.status, 406);
    assert.equal(r.contentType, 'application/json');
    const text = r.body.toString();
    assert.equal(text, JSON.stringify(JSON.parse(text), null, 2));
    assert.equal(JSON.parse(text).reason, 'NotAcceptable');
  });

  it('a JSON 409 is written in Go field order, an empty group left out', async () => {
    const r = await send('POST', CM, JSON_BODY, '{"metadata":{"name":"taken"}}');
    assert.equal(r.status, 409);
    assert.equal(
      r.body.toString(),
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"taken\\" already exists","reason":"AlreadyExists","details":{"name":"taken","kind":"configmaps"},"code":409}\n',
    );
  });
});
