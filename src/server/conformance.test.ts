// Answers checked word for word against what kube-apiserver 1.27 sends: routing errors,
// bodies that do not decode, patch documents of the wrong shape, and which media types
// each kind is offered in.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { binarySerializer } from '../codec/binary.js';
import { decodeObject, encodeObject } from '../codec/protobuf/index.js';
import { SerializerSet } from '../codec/serializer.js';
import { metaGroup, protobufMediaType, setFlavor } from '../naming/index.js';
import type { RESTStore } from '../rest/index.js';
import { reviewStore, startTestServer, type TestServer } from '../testing/api-server.js';

setFlavor('orch');

let t: TestServer;
before(async () => {
  const serializers = new SerializerSet();
  serializers.register(binarySerializer());
  t = await startTestServer({ serializers });
  for (const name of ['x', 'default']) {
    const ns = await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name } } });
    assert.equal(ns.status, 201, ns.body);
  }
  const cm = await t.request('POST', `${CM}`, { body: { metadata: { name: 'p1' }, data: { a: '1' } } });
  assert.equal(cm.status, 201, cm.body);
});
after(async () => {
  await t.close();
});

const CM = '/api/v1/namespaces/x/configmaps';
const WIDGETS = '/apis/widgets.testing/v1/namespaces/x/widgets';
const TYPE_META = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

function status(code: number, reason: string, message: string, details?: Record<string, unknown>): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
}

describe('methods a path is not served for', () => {
  const notAllowed = status(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});

  it('answers the generic 405 where the path serves other methods', async () => {
    const cases: [string, string][] = [
      ['PUT', CM],
      ['POST', `${CM}/p1`],
      ['DELETE', '/api/v1/namespaces'],
      ['POST', '/api/v1/configmaps'],
      ['GET', '/apis/reviews.testing/v1/echoes'],
      ['POST', '/api/v1/watch/namespaces/x/configmaps'],
      ['OPTIONS', `${CM}/p1`],
    ];
    for (const [method, path] of cases) {
      const r = await t.request(method, path, method === 'GET' || method === 'OPTIONS' ? {} : { body: {} });
      assert.equal(r.status, 405, `${method} ${path}: ${r.body}`);
      assert.deepEqual(r.json(), notAllowed, `${method} ${path}`);
    }
  });

  it('answers 404 where no route exists at all', async () => {
    for (const path of ['/api/v1/configmaps/p1', '/apis/reviews.testing/v1/echoes/e1', '/api/v1/namespaces/x/configmaps/p1/nosuch']) {
      const r = await t.request('GET', path);
      assert.equal(r.status, 404, path);
      assert.equal(r.json().message, 'the server could not find the requested resource');
    }
  });

  it('names the verb when the route exists but the storage lacks it (a watch of a resource only listed)', async () => {
    const listOnly: RESTStore = {
      definition: { ...reviewStore().definition, group: 'lists.testing', resource: 'ledgers', kind: 'Ledger', verbs: ['list'] },
      list: async () => ({ apiVersion: 'lists.testing/v1', kind: 'LedgerList', metadata: {}, items: [] }),
    };
    t.table.add(listOnly);
    try {
      assert.equal((await t.request('GET', '/apis/lists.testing/v1/ledgers')).status, 200);
      const r = await t.request('GET', '/apis/lists.testing/v1/ledgers?watch=true');
      assert.equal(r.status, 405);
      assert.deepEqual(r.json(), status(405, 'MethodNotAllowed', 'watch is not supported on resources of kind "ledgers.lists.testing"', { group: 'lists.testing', kind: 'ledgers' }));
    } finally {
      t.table.remove({ group: 'lists.testing', version: 'v1' }, 'ledgers');
    }
  });
});

describe('bodies that do not decode', () => {
  it('reports a malformed JSON body on create and update with Go decoder text, as Kubernetes does', async () => {
    const cases: [string, string][] = [
      ['{"metadata": ', `couldn't get version/kind; json parse error: unexpected end of JSON input ({"metadata": )`],
      ['x{}', `couldn't get version/kind; json parse error: invalid character 'x' looking for beginning of value (787b7d)`],
      ['{"metadata": {"name": "long-enough-to-be-cut"', `couldn't get version/kind; json parse error: unexpected end of JSON input ({"metadata": {"name": "long-en ...)`],
      ['[1,2]', `couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type ${TYPE_META} (5b312c325d)`],
      ['{"kind": 7}', `couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string ({"kind": 7})`],
      ['', `couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)`],
    ];
    for (const [body, detail] of cases) {
      for (const [method, path] of [['POST', CM], ['PUT', `${CM}/p1`]] as const) {
        const r = await t.request(method, path, { body: Buffer.from(body), headers: { 'Content-Type': 'application/json' } });
        assert.equal(r.status, 400, `${method} ${body}`);
        assert.deepEqual(r.json(), status(400, 'BadRequest', `the object provided is unrecognized (must be of type ConfigMap): ${detail}`), `${method} ${body}`);
      }
    }
  });

  it('decodes a null body as an empty object, which then fails validation', async () => {
    for (const [body, type] of [['null', 'application/json'], ['null', 'application/yaml']]) {
      const r = await t.request('POST', CM, { body: Buffer.from(body), headers: { 'Content-Type': type } });
      assert.equal(r.status, 422, `${type}: ${r.body}`);
      assert.equal(r.json().message, 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required');
    }
  });

  it('reads null type fields as absent, and a metadata that is not an object with Go decoder text', async () => {
    const ok = await t.request('POST', CM, { body: { apiVersion: null, kind: null, metadata: { name: 'nulls' } } });
    assert.equal(ok.status, 201, ok.body);
    assert.equal(ok.json().kind, 'ConfigMap');
    const bad = await t.request('POST', WIDGETS, { body: { metadata: 'w' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.json().message, 'Widget in version "v1" cannot be handled as a Widget: json: cannot unmarshal string into Go struct field Widget.metadata of type v1.ObjectMeta');
  });
});

describe('patch documents of the wrong shape', () => {
  const patch = (body: string, type: string, query = '') => t.request('PATCH', `${CM}/p1${query}`, { body: Buffer.from(body), headers: { 'Content-Type': type } });

  it('answers a JSON patch that is not an array with the patch module errors', async () => {
    const ignore = await patch('{"op":"add"}', 'application/json-patch+json', '?fieldValidation=Ignore');
    assert.deepEqual(ignore.json(), status(400, 'BadRequest', 'json: cannot unmarshal object into Go value of type jsonpatch.Patch'));
    const warn = await patch('{"op":"add"}', 'application/json-patch+json');
    assert.deepEqual(warn.json(), status(400, 'BadRequest', 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp'));
  });

  it('answers a merge patch that is an array with the 422 of a patched document that does not decode', async () => {
    const r = await patch('[1]', 'application/merge-patch+json');
    assert.equal(r.status, 422, r.body);
    const detail = `couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type ${TYPE_META}`;
    assert.deepEqual(
      r.json(),
      // Empty name, group and kind are left out of the details, as Go's omitempty does.
      status(422, 'Invalid', ` "" is invalid: patch: Invalid value: "[1]": ${detail}`, {
        causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: "[1]": ${detail}`, field: 'patch' }],
      }),
    );
    const scalar = await patch('"s"', 'application/merge-patch+json');
    assert.deepEqual(scalar.json(), status(400, 'BadRequest', 'Invalid JSON Patch'));
    const smp = await patch('[1]', 'application/strategic-merge-patch+json');
    assert.deepEqual(smp.json(), status(400, 'BadRequest', 'json: cannot unmarshal array into Go value of type map[string]interface {}'));
  });

  it('words malformed patch documents per patch type, after the object is found', async () => {
    assert.equal((await patch('{"data":', 'application/merge-patch+json', '?fieldValidation=Ignore')).json().message, 'Invalid JSON Patch');
    assert.equal((await patch('{"data":', 'application/merge-patch+json')).json().message, 'error decoding patch: unexpected end of JSON input');
    assert.equal((await patch('[x]', 'application/json-patch+json', '?fieldValidation=Ignore')).json().message, `invalid character 'x' looking for beginning of value`);
    assert.equal((await patch('{"data":', 'application/strategic-merge-patch+json')).json().message, 'unexpected end of JSON input');
    const missing = await t.request('PATCH', `${CM}/nope`, { body: Buffer.from('{"data":'), headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(missing.status, 404);
  });

  it('rejects unknown JSON patch operation fields under Strict and warns under Warn', async () => {
    const ops = '[{"op":"add","path":"/data/b","value":"2","extra":1}]';
    const strict = await patch(ops, 'application/json-patch+json', '?fieldValidation=Strict');
    assert.equal(strict.status, 422, strict.body);
    assert.match(String(strict.json().message), /strict decoding error: json patch unknown field "extra"$/);
    const warn = await patch(ops, 'application/json-patch+json');
    assert.equal(warn.status, 200, warn.body);
    assert.equal(warn.headers.warning, '299 - "json patch unknown field \\"extra\\""');
  });
});

describe('binary negotiation', () => {
  const PB = protobufMediaType();
  const TABLE = `as=Table;v=v1;g=${metaGroup()}`;

  it('never serves a Table in the binary form: the next Accept entry, or 406', async () => {
    const only = await t.request('GET', CM, { headers: { Accept: `${PB};${TABLE}` } });
    assert.equal(only.status, 406);
    const next = await t.request('GET', CM, { headers: { Accept: `${PB};${TABLE},application/json;${TABLE}` } });
    assert.equal(next.status, 200);
    assert.equal(next.headers['content-type'], `application/json;${TABLE}`);
    assert.equal(next.json().kind, 'Table');
  });

  it('offers the binary form only for kinds it can encode, and never falls back to an unlisted JSON', async () => {
    const w = await t.request('POST', WIDGETS, { body: { metadata: { name: 'w1' } } });
    assert.equal(w.status, 201, w.body);
    const only = await t.request('GET', `${WIDGETS}/w1`, { headers: { Accept: PB } });
    assert.equal(only.status, 406);
    assert.equal(only.json().reason, 'NotAcceptable');
    const yaml = await t.request('GET', `${WIDGETS}/w1`, { headers: { Accept: `${PB},application/yaml` } });
    assert.equal(yaml.status, 200);
    assert.equal(yaml.headers['content-type'], 'application/yaml');
    const list = await t.request('GET', WIDGETS, { headers: { Accept: `${PB},application/json` } });
    assert.equal(list.headers['content-type'], 'application/json');
    const watch = await t.request('GET', `${WIDGETS}?watch=true&timeoutSeconds=1`, { headers: { Accept: PB } });
    assert.equal(watch.status, 406);
    const body = await t.request('POST', WIDGETS, { body: Buffer.from([0x6b, 0x38, 0x73, 0x00]), headers: { 'Content-Type': PB } });
    assert.deepEqual(body.json(), status(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml'));
  });

  it('serves built-in kinds in the binary form and reports a body without the prefix as unrecognized', async () => {
    const r = await t.request('GET', `${CM}/p1`, { headers: { Accept: PB } });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], PB);
    const bad = await t.request('POST', CM, { body: Buffer.from('{"kind":"ConfigMap"}'), headers: { 'Content-Type': PB } });
    assert.equal(bad.json().message, 'the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({"kind":"ConfigMap"})');
  });

  it('decodes an envelope whose type fields are empty as the kind the request addresses', async () => {
    const full = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'untyped' }, data: { k: 'v' } });
    // prefix, then field 1 (typeMeta) of a short length: replace it by an empty typeMeta.
    assert.equal(full[4], 0x0a);
    const typeMetaLength = full[5]!;
    const untyped = Buffer.concat([Buffer.from(full.subarray(0, 4)), Buffer.from([0x0a, 0x00]), Buffer.from(full.subarray(6 + typeMetaLength))]);
    assert.throws(() => decodeObject(untyped));
    const r = await t.request('POST', CM, { body: untyped, headers: { 'Content-Type': PB } });
    assert.equal(r.status, 201, r.body);
    assert.equal(r.json().kind, 'ConfigMap');
    assert.deepEqual(r.json().data, { k: 'v' });
  });
});
