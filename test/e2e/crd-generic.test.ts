// Black-box: custom resources through the clients users bring. @kubernetes/client-node's
// CustomObjectsApi and an informer; kubectl with a conversion webhook served by the test over
// HTTPS; kubectl deleting a namespace full of custom resources, categories and api-resources.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { createCA, issueCert } from '../../src/testing/pki.js';
import { json, startHttpsServer, type TestHttpsServer } from '../../src/testing/https-server.js';
import { eventually, Kubectl, kubectlPath, serverUnavailable, startTestServer, type Flavor, type TestServer } from './harness.js';

const binary = kubectlPath();
const skip = serverUnavailable();
const kubectlSkip = skip ?? (binary ? undefined : 'kubectl is not on PATH');

const apiext = (flavor: Flavor): string => `apiextensions.${flavor === 'orch' ? 'orch.io' : 'k8s.io'}`;

interface Versions {
  [name: string]: Record<string, unknown>;
}

/** A namespaced definition in group example.com with the given versions (the first is stored). */
function definition(flavor: Flavor, plural: string, kind: string, versions: Versions, extra: Record<string, unknown> = {}, names: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: `${apiext(flavor)}/v1`,
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural, kind, ...names },
      versions: Object.entries(versions).map(([name, properties], i) => ({
        name,
        served: true,
        storage: i === 0,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } },
      })),
      ...extra,
    },
  };
}

async function establish(server: TestServer, flavor: Flavor, body: Record<string, unknown>, probe: string): Promise<void> {
  const created = await server.client.request('POST', `/apis/${apiext(flavor)}/v1/customresourcedefinitions`, body);
  assert.equal(created.statusCode, 201, created.body.toString());
  await eventually(async () => ((await server.client.request('GET', probe)).statusCode === 200 ? true : undefined), `${probe} served`);
}

function apiCode(e: unknown): number | undefined {
  return e instanceof k8s.ApiException ? e.code : undefined;
}

describe('custom resources through @kubernetes/client-node', { skip }, () => {
  let server: TestServer;
  let kc: k8s.KubeConfig;
  let custom: k8s.CustomObjectsApi;
  const W = { group: 'example.com', version: 'v1', namespace: 'cn', plural: 'widgets' };
  type Widget = { apiVersion: string; kind: string; metadata: { name: string; resourceVersion?: string; labels?: Record<string, string> }; spec?: Record<string, unknown> };

  before(async () => {
    server = await startTestServer({ flavor: 'kubernetes' });
    kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfigPath);
    custom = kc.makeApiClient(k8s.CustomObjectsApi);
    await kc.makeApiClient(k8s.CoreV1Api).createNamespace({ body: { metadata: { name: 'cn' } } });
    // The definition goes through the typed client too, as an operator's installer would.
    const apiextensions = kc.makeApiClient(k8s.ApiextensionsV1Api);
    await apiextensions.createCustomResourceDefinition({
      body: definition('kubernetes', 'widgets', 'Widget', { v1: { size: { type: 'string' }, replicas: { type: 'integer' } } }) as unknown as k8s.V1CustomResourceDefinition,
    });
    await eventually(async () => ((await server.client.request('GET', '/apis/example.com/v1/namespaces/cn/widgets')).statusCode === 200 ? true : undefined), 'widgets served');
  });
  after(async () => {
    assert.equal(await server?.stop(), 0);
  });

  test('CustomObjectsApi: create, get, list, merge patch, apply, delete', async () => {
    const created = (await custom.createNamespacedCustomObject({ ...W, body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 'small' } } })) as Widget;
    assert.equal(created.metadata.name, 'w1');
    const got = (await custom.getNamespacedCustomObject({ ...W, name: 'w1' })) as Widget;
    assert.deepEqual(got.spec, { size: 'small' });
    const list = (await custom.listNamespacedCustomObject(W)) as { kind: string; items: Widget[] };
    assert.equal(list.kind, 'WidgetList');
    assert.deepEqual(list.items.map((i) => i.metadata.name), ['w1']);

    const merged = (await custom.patchNamespacedCustomObject(
      { ...W, name: 'w1', body: { metadata: { labels: { app: 'demo' } }, spec: { replicas: 2 } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    )) as Widget;
    assert.deepEqual(merged.spec, { size: 'small', replicas: 2 });
    assert.deepEqual(merged.metadata.labels, { app: 'demo' });

    const applied = (await custom.patchNamespacedCustomObject(
      { ...W, name: 'w2', fieldManager: 'installer', force: true, body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w2' }, spec: { size: 'large' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply),
    )) as Widget & { metadata: { managedFields: { manager: string; operation: string; apiVersion: string }[] } };
    assert.deepEqual(applied.spec, { size: 'large' });
    assert.deepEqual(
      applied.metadata.managedFields.map((f) => [f.manager, f.operation, f.apiVersion]),
      [['installer', 'Apply', 'example.com/v1']],
    );
    // Strategic merge patch is not for custom resources.
    await assert.rejects(
      custom.patchNamespacedCustomObject({ ...W, name: 'w1', body: { spec: { replicas: 3 } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch)),
      (e: unknown) => apiCode(e) === 415,
    );

    await custom.deleteNamespacedCustomObject({ ...W, name: 'w1' });
    await assert.rejects(custom.getNamespacedCustomObject({ ...W, name: 'w1' }), (e: unknown) => apiCode(e) === 404);
  });

  test('an informer on a custom resource sees add, update and delete', async () => {
    const path = '/apis/example.com/v1/namespaces/cn/widgets';
    const informer = k8s.makeInformer<k8s.KubernetesObject>(kc, path, () => custom.listNamespacedCustomObject(W) as Promise<k8s.KubernetesListObject<k8s.KubernetesObject>>);
    const log: string[] = [];
    informer.on('add', (o) => log.push(`add ${o.metadata?.name}`));
    informer.on('update', (o) => log.push(`update ${o.metadata?.name}`));
    informer.on('delete', (o) => log.push(`delete ${o.metadata?.name}`));
    const errors: unknown[] = [];
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    try {
      await eventually(() => (log.includes('add w2') ? true : undefined), 'the initial list');
      await custom.createNamespacedCustomObject({ ...W, body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w3' }, spec: {} } });
      await eventually(() => (log.includes('add w3') ? true : undefined), 'the watch add');
      await custom.patchNamespacedCustomObject({ ...W, name: 'w3', body: { spec: { size: 'small' } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
      await eventually(() => (log.includes('update w3') ? true : undefined), 'the watch update');
      await custom.deleteNamespacedCustomObject({ ...W, name: 'w2' });
      await eventually(() => (log.includes('delete w2') ? true : undefined), 'the watch delete');
      assert.deepEqual(informer.list('cn').map((o) => o.metadata?.name), ['w3']);
      assert.deepEqual(errors, []);
    } finally {
      await informer.stop();
    }
  });
});

describe('a conversion webhook through kubectl (kubernetes flavor)', { skip: kubectlSkip }, () => {
  let server: TestServer;
  let kubectl: Kubectl;
  let hook: TestHttpsServer;
  let failing = false;
  const reviews: { desiredAPIVersion: string; from: string[] }[] = [];

  type Obj = { apiVersion: string; kind: string; metadata: Record<string, unknown>; spec?: Record<string, unknown> };
  // v1 says spec.replicas, v2 says spec.count.
  const convert = (o: Obj, to: string): Obj => {
    const spec = { ...(o.spec ?? {}) };
    if (to === 'example.com/v2' && 'replicas' in spec) {
      spec.count = spec.replicas;
      delete spec.replicas;
    }
    if (to === 'example.com/v1' && 'count' in spec) {
      spec.replicas = spec.count;
      delete spec.count;
    }
    return { ...o, apiVersion: to, spec };
  };

  before(async () => {
    const ca = await createCA('conversion-ca');
    hook = await startHttpsServer(await issueCert(ca, 'converter', { usage: 'server', ips: ['127.0.0.1'] }), (_req, body, res) => {
      const review = JSON.parse(body) as { apiVersion: string; request: { uid: string; desiredAPIVersion: string; objects: Obj[] } };
      const rq = review.request;
      reviews.push({ desiredAPIVersion: rq.desiredAPIVersion, from: rq.objects.map((o) => o.apiVersion) });
      const response = failing
        ? { uid: rq.uid, result: { status: 'Failure', message: 'the converter is down' } }
        : { uid: rq.uid, convertedObjects: rq.objects.map((o) => convert(o, rq.desiredAPIVersion)), result: { status: 'Success' } };
      json(res, 200, { apiVersion: review.apiVersion, kind: 'ConversionReview', response });
    });
    server = await startTestServer({ flavor: 'kubernetes' });
    kubectl = new Kubectl(binary!, server.kubeconfigPath);
    const conversion = {
      strategy: 'Webhook',
      webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: `${hook.url}/convert`, caBundle: Buffer.from(ca.certPem).toString('base64') } },
    };
    const body = definition('kubernetes', 'widgets', 'Widget', { v1: { replicas: { type: 'integer' } }, v2: { count: { type: 'integer' } } }, { conversion });
    const applied = await kubectl.run(['apply', '-f', '-'], { input: JSON.stringify(body) });
    assert.equal(applied.code, 0, applied.stderr);
    const waited = await kubectl.run(['wait', '--for', 'condition=established', '--timeout=20s', 'crd/widgets.example.com']);
    assert.equal(waited.code, 0, waited.stderr);
    await eventually(async () => ((await server.client.request('GET', '/apis/example.com/v2/namespaces/default/widgets')).statusCode === 200 ? true : undefined), 'v2 served');
  });
  after(async () => {
    kubectl?.dispose();
    assert.equal(await server?.stop(), 0);
    await hook?.close();
  });

  const widgetIn = (version: string, name: string, spec: Record<string, unknown>): string =>
    JSON.stringify({ apiVersion: `example.com/${version}`, kind: 'Widget', metadata: { name, namespace: 'default' }, spec });

  test('created in v1, read in v2 through the webhook', async () => {
    const created = await kubectl.run(['create', '-f', '-'], { input: widgetIn('v1', 'w1', { replicas: 3 }) });
    assert.equal(created.code, 0, created.stderr);
    reviews.length = 0;
    const v2 = await kubectl.run(['get', 'widgets.v2.example.com', 'w1', '-o', 'json']);
    assert.equal(v2.code, 0, v2.stderr);
    const obj = JSON.parse(v2.stdout) as Obj;
    assert.equal(obj.apiVersion, 'example.com/v2');
    // Only the webhook knows that v2's count is v1's replicas: the answer went through it.
    assert.deepEqual(obj.spec, { count: 3 });
    // The controllers' watches convert the new object too, at moments of their own: the
    // reviews seen meanwhile are the get's and theirs, all from the stored v1 to v2 (that a
    // read makes one review is for src/registry/customresource/conversion.test.ts).
    assert.ok(reviews.length > 0, 'the get asked the webhook');
    assert.deepEqual(new Set(reviews.map((r) => `${r.from.join(',')} -> ${r.desiredAPIVersion}`)), new Set(['example.com/v1 -> example.com/v2']));
    const v1 = await kubectl.run(['get', 'widgets.v1.example.com', 'w1', '-o', 'jsonpath={.spec.replicas}']);
    assert.equal(v1.stdout, '3');
  });

  test('created in v2, stored in v1', async () => {
    reviews.length = 0;
    const created = await kubectl.run(['create', '-f', '-'], { input: widgetIn('v2', 'w2', { count: 5 }) });
    assert.equal(created.code, 0, created.stderr);
    assert.ok(reviews.some((r) => r.desiredAPIVersion === 'example.com/v1' && r.from[0] === 'example.com/v2'), JSON.stringify(reviews));
    const v1 = await kubectl.run(['get', 'widgets.v1.example.com', 'w2', '-o', 'jsonpath={.spec.replicas}']);
    assert.equal(v1.stdout, '5');
  });

  test('a failing webhook is a 500 naming it, and nothing is stored', async () => {
    failing = true;
    try {
      const refused = await server.client.request('POST', '/apis/example.com/v2/namespaces/default/widgets', JSON.parse(widgetIn('v2', 'w3', { count: 1 })) as unknown);
      assert.equal(refused.statusCode, 500, refused.body.toString());
      const status = JSON.parse(refused.body.toString()) as { message: string; reason?: string };
      assert.match(status.message, /conversion webhook for example\.com\/v2, Kind=Widget failed: the converter is down/);
      const viaKubectl = await kubectl.run(['create', '-f', '-'], { input: widgetIn('v2', 'w3', { count: 1 }) });
      assert.notEqual(viaKubectl.code, 0);
      // A 500 without a reason, as Kubernetes answers a failed conversion ("Error from server: ...").
      assert.match(viaKubectl.stderr, /^Error from server: .*conversion webhook for example\.com\/v2, Kind=Widget failed: the converter is down/);
      const read = await kubectl.run(['get', 'widgets.v2.example.com', 'w1']);
      assert.notEqual(read.code, 0);
      assert.match(read.stderr, /^Error from server: conversion webhook for example\.com\/v1, Kind=Widget failed: the converter is down/);
    } finally {
      failing = false;
    }
    const names = await kubectl.run(['get', 'widgets.v1.example.com', '-o', 'name']);
    assert.equal(names.stdout.trim().split('\n').join(' '), 'widget.example.com/w1 widget.example.com/w2');
  });
});

for (const flavor of ['orch', 'kubernetes'] as const) {
  describe(`kubectl and custom resources in namespaces and categories (${flavor} flavor)`, { skip: kubectlSkip }, () => {
    let server: TestServer;
    let kubectl: Kubectl;
    const validate = flavor === 'orch' ? ['--validate=false'] : [];

    before(async () => {
      server = await startTestServer({ flavor });
      kubectl = new Kubectl(binary!, server.kubeconfigPath);
      await establish(server, flavor, definition(flavor, 'widgets', 'Widget', { v1: {} }, {}, { categories: ['gear'] }), '/apis/example.com/v1/namespaces/default/widgets');
      await establish(server, flavor, definition(flavor, 'gizmos', 'Gizmo', { v1: {} }, {}, { categories: ['gear', 'all'] }), '/apis/example.com/v1/namespaces/default/gizmos');
      const ns = await kubectl.run(['create', 'namespace', 'shop']);
      assert.equal(ns.code, 0, ns.stderr);
      const objects = ['widgets', 'gizmos'].map((plural) =>
        JSON.stringify({ apiVersion: 'example.com/v1', kind: plural === 'widgets' ? 'Widget' : 'Gizmo', metadata: { name: `${plural}-1`, namespace: 'shop' }, spec: {} }),
      );
      for (const o of objects) {
        const r = await kubectl.run(['create', '-f', '-', ...validate], { input: o });
        assert.equal(r.code, 0, r.stderr);
      }
    });
    after(async () => {
      kubectl?.dispose();
      assert.equal(await server?.stop(), 0);
    });

    test('api-resources --categories lists the custom resources of a category', async () => {
      const gear = await kubectl.run(['api-resources', '--categories=gear', '-o', 'name']);
      assert.equal(gear.code, 0, gear.stderr);
      assert.deepEqual(gear.stdout.trim().split('\n').sort(), ['gizmos.example.com', 'widgets.example.com']);
      const all = await kubectl.run(['api-resources', '--categories=all', '-o', 'name']);
      assert.ok(all.stdout.split('\n').includes('gizmos.example.com'), all.stdout);
      assert.ok(!all.stdout.split('\n').includes('widgets.example.com'), all.stdout);
    });

    test('get <category> returns the custom resources in it', async () => {
      const gear = await kubectl.run(['get', 'gear', '-n', 'shop', '-o', 'name']);
      assert.equal(gear.code, 0, gear.stderr);
      assert.deepEqual(gear.stdout.trim().split('\n').sort(), ['gizmo.example.com/gizmos-1', 'widget.example.com/widgets-1']);
    });

    test('delete namespace removes its custom resources and waits until it is gone', async () => {
      const deleted = await kubectl.run(['delete', 'namespace', 'shop', '--timeout=60s']);
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.equal(deleted.stdout.trim(), 'namespace "shop" deleted');
      const gone = await kubectl.run(['get', 'namespace', 'shop']);
      assert.notEqual(gone.code, 0);
      assert.match(gone.stderr, /namespaces "shop" not found/);
      const left = await kubectl.run(['get', 'widgets,gizmos', '-A', '-o', 'name']);
      assert.equal(left.code, 0, left.stderr);
      assert.equal(left.stdout.trim(), '');
    });
  });
}
