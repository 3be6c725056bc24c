// Hostile bodies through a running server over HTTPS: the decoders' refusals reach clients
// as 400s, nothing is stored, nothing is printed, and the server stays up.
import { printedDuring } from '../testing/output.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TEST_GROUP } from '../testing/registry.js';
import { startTestServer, type TestServer } from '../testing/api-server.js';
import { parseJsonText } from './json.js';

let t: TestServer;
before(async () => {
  t = await startTestServer();
  const ns = await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'default' } } });
  assert.equal(ns.status, 201, ns.body);
});
after(async () => {
  await t.close();
});

const CM = '/api/v1/namespaces/default/configmaps';
const WIDGETS = `/apis/${TEST_GROUP}/v1/namespaces/default/widgets`;
const YAML = { 'Content-Type': 'application/yaml' };

describe('hostile bodies over HTTPS', () => {
  it('an apply body of 100,000 [ answers 400 twice and the server stays up', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await t.request('PATCH', `${CM}/x?fieldManager=a`, { body: '['.repeat(100_000), headers: { 'Content-Type': 'application/apply-patch+yaml' } });
      assert.equal(r.status, 400, r.body);
      assert.equal(r.json().message, 'the object nesting depth exceeds the limit of 100');
    }
    assert.equal((await t.request('GET', '/livez')).status, 200);
    assert.equal((await t.request('GET', `${CM}/x`)).status, 404);
  });

  it('a YAML body whose aliases expand far beyond it is refused and not stored', async () => {
    const body = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: amp\ndata:\n  a: &s ${'x'.repeat(20_000)}\nbinaryData: {}\nextra: [${Array(100).fill('*s').join(', ')}]\n`;
    const r = await t.request('POST', CM, { body, headers: YAML });
    assert.equal(r.status, 400, r.body);
    assert.match(String(r.json().message), /yaml: document contains excessive aliasing/);
    const applied = await t.request('PATCH', `${CM}/amp?fieldManager=a`, { body, headers: { 'Content-Type': 'application/apply-patch+yaml' } });
    assert.equal(applied.status, 400, applied.body);
    assert.equal(applied.json().message, 'error decoding YAML: error converting YAML to JSON: yaml: document contains excessive aliasing');
    assert.equal((await t.request('GET', `${CM}/amp`)).status, 404);
  });

  it('a JSON body nested too deep answers what kube-apiserver answers one beyond its limit; nothing is stored', async () => {
    const body = (name: string, depth: number): string => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"x":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    // 100 levels (the object itself is the first): accepted, the unknown field dropped with a warning.
    const ok = await t.request('POST', CM, { body: body('deep100', 100) });
    assert.equal(ok.status, 201, ok.body);
    for (const [name, depth] of [['deep101', 101], ['deep1000', 1000], ['deep10001', 10_001], ['deep100000', 100_000]] as const) {
      const r = await t.request('POST', CM, { body: body(name, depth) });
      assert.equal(r.status, 400, r.body);
      assert.equal(r.json().reason, 'BadRequest');
      assert.equal(
        r.json().message,
        `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '[' exceeded max depth ({"apiVersion":"v1","kind":"Con ...)`,
      );
      assert.equal((await t.request('GET', `${CM}/${name}`)).status, 404);
    }
    const put = await t.request('PUT', `${CM}/deep100`, { body: body('deep100', 10_001) });
    assert.equal(put.status, 400, put.body);
    assert.match(String(put.json().message), /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: invalid character '\[' exceeded max depth/);
    const patch = await t.request('PATCH', `${CM}/deep100`, { body: `{"data":${'{"a":'.repeat(10_001)}1${'}'.repeat(10_001)}}`, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(patch.status, 400, patch.body);
    assert.equal(patch.json().message, "error decoding patch: invalid character '{' exceeded max depth");
    assert.equal((await t.request('GET', '/livez')).status, 200);
  });

  it('a value with an unknown tag is stored as its text and nothing is printed', async () => {
    const printed = await printedDuring(async () => {
      const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: vault\ndata:\n  password: !vault hunter2\n';
      const r = await t.request('POST', CM, { body, headers: YAML });
      assert.equal(r.status, 201, r.body);
      assert.deepEqual(r.json().data, { password: 'hunter2' });
      const applied = await t.request('PATCH', `${CM}/vault2?fieldManager=a`, { body: body.replace('name: vault', 'name: vault2'), headers: { 'Content-Type': 'application/apply-patch+yaml' } });
      assert.equal(applied.status, 201, applied.body);
    });
    assert.deepEqual(printed, []);
  });

  it('a lone surrogate escape is stored as U+FFFD', async () => {
    const r = await t.request('POST', CM, { body: '{"metadata":{"name":"sur"},"data":{"k":"a\\ud800b"}}' });
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(r.json().data, { k: 'a\ufffdb' });
  });

  it('__proto__ keys are stored as keys', async () => {
    const r = await t.request('POST', CM, { body: '{"metadata":{"name":"proto"},"data":{"__proto__":"v","constructor":"c"}}' });
    assert.equal(r.status, 201, r.body);
    const got = await t.request('GET', `${CM}/proto`);
    assert.match(got.body, /"__proto__":"v"/);
    assert.equal(({} as Record<string, unknown>).v, undefined);
  });

  it('integers beyond 2^53 round-trip exactly through create and get, in JSON and YAML', async () => {
    const json = '{"metadata":{"name":"big-json"},"spec":{"big":9007199254740993,"min":-9223372036854775808,"small":3}}';
    const created = await t.request('POST', WIDGETS, { body: json });
    assert.equal(created.status, 201, created.body);
    // A custom resource is written with its keys sorted: the defaulted size sits among them.
    assert.match(created.body, /"big":9007199254740993,"min":-9223372036854775808,"size":1,"small":3/);
    const yaml = 'metadata:\n  name: big-yaml\nspec:\n  big: 9007199254740993\n  min: -9223372036854775808\n  small: 3\n';
    assert.equal((await t.request('POST', WIDGETS, { body: yaml, headers: YAML })).status, 201);
    for (const name of ['big-json', 'big-yaml']) {
      const got = await t.request('GET', `${WIDGETS}/${name}`);
      const spec = (parseJsonText(got.body) as { spec: Record<string, unknown> }).spec;
      assert.deepEqual(spec, { big: 9007199254740993n, min: -9223372036854775808n, small: 3, size: 1 });
      const asYaml = await t.request('GET', `${WIDGETS}/${name}`, { headers: { Accept: 'application/yaml' } });
      assert.match(asYaml.body, /big: 9007199254740993\n/);
      assert.match(asYaml.body, /min: -9223372036854775808\n/);
    }
  });
});
