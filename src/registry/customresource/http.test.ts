// Custom resources over HTTP: a definition made established by a status update (as the
// definition controller would), then every verb on its resources.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../../testing/api-server.js';
import { eventually } from '../../testing/wait.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { metaGroup } from '../../naming/index.js';
import { crdResource } from './registrar.js';

let srv: TestServer;
const crdPath = (): string => `/apis/${crdResource().group}/v1/customresourcedefinitions`;

function crd(plural: string, kind: string, scope: 'Namespaced' | 'Cluster', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: `${crdResource().group}/v1`,
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope,
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List`, shortNames: [`${plural.slice(0, 2)}x`] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-orch-preserve-unknown-fields': true } },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
          additionalPrinterColumns: [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }],
        },
        { name: 'v1beta1', served: true, storage: false, deprecated: true, schema: { openAPIV3Schema: { type: 'object', 'x-orch-preserve-unknown-fields': true } } },
      ],
      ...extra,
    },
  };
}

/** Creates a definition and sets the conditions its controller would set. */
async function establish(def: Record<string, unknown>, conditions: { type: string; status: string }[] = [{ type: 'Established', status: 'True' }]): Promise<void> {
  const name = (def.metadata as { name: string }).name;
  let created = await srv.request('GET', `${crdPath()}/${name}`);
  if (created.status === 404) created = await srv.request('POST', crdPath(), { body: def });
  assert.ok(created.status === 201 || created.status === 200, created.body);
  const obj = created.json();
  const spec = obj.spec as { names: Record<string, unknown> };
  obj.status = { ...(obj.status as object), acceptedNames: spec.names, conditions: conditions.map((c) => ({ ...c, reason: 'Test', message: '', lastTransitionTime: '2024-01-01T00:00:00Z' })) };
  const res = await srv.request('PUT', `${crdPath()}/${name}/status`, { body: obj });
  assert.equal(res.status, 200, res.body);
}

before(async () => {
  srv = await startTestServer({}, { customResources: true });
  await establish(crd('foos', 'Foo', 'Namespaced'));
  await establish(crd('bars', 'Bar', 'Cluster'));
  await eventually(async () => (await srv.request('GET', '/apis/example.com/v1/namespaces/default/foos')).status === 200, 'foos served', 2000);
  await eventually(async () => (await srv.request('GET', '/apis/example.com/v1/bars')).status === 200, 'bars served', 2000);
});

after(async () => {
  await srv.close();
});

function names(items: unknown): string[] {
  return (items as { metadata: { name: string } }[]).map((i) => i.metadata.name);
}

const foos = '/apis/example.com/v1/namespaces/default/foos';

test('the definitions of a CRD: versions by priority, names, subresources, deprecation text', () => {
  const v1 = srv.table.lookup({ group: 'example.com', version: 'v1' }, 'foos');
  const beta = srv.table.lookup({ group: 'example.com', version: 'v1beta1' }, 'foos');
  assert.ok(v1 && beta);
  assert.equal(v1.definition.preferred, true);
  assert.equal(beta.definition.preferred, false);
  assert.deepEqual(v1.definition.shortNames, ['fox']);
  assert.deepEqual(v1.definition.storage, { group: 'example.com', resource: 'foos', version: 'v1' });
  assert.deepEqual(
    v1.definition.subresources.map((s) => [s.name, s.kind, s.group ?? '']),
    [
      ['status', 'Foo', ''],
      ['scale', 'Scale', 'autoscaling'],
    ],
  );
  assert.equal(v1.definition.customResource?.crdName, 'foos.example.com');
  assert.equal(v1.definition.customResource?.schema?.['x-kubernetes-preserve-unknown-fields'], true);
  assert.equal(beta.definition.customResource?.deprecationWarning, 'example.com/v1beta1 Foo is deprecated; use example.com/v1 Foo');
});

test('create, get, list with selectors, update, patch, status, generation, delete', async () => {
  const created = await srv.request('POST', foos, { body: { apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'a', labels: { app: 'x' } }, spec: { replicas: 2 }, status: { replicas: 9 } } });
  assert.equal(created.status, 201, created.body);
  const a = created.json();
  assert.equal(a.metadata?.generation, 1);
  assert.equal(a.status, undefined, 'status is dropped on create');
  await srv.request('POST', foos, { body: { apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'b' }, spec: { replicas: 1 } } });

  const listed = (await srv.request('GET', `${foos}?labelSelector=app%3Dx`)).json();
  assert.equal(listed.kind, 'FooList');
  assert.deepEqual(names(listed.items), ['a']);
  const byName = (await srv.request('GET', `${foos}?fieldSelector=metadata.name%3Db`)).json();
  assert.deepEqual(names(byName.items), ['b']);
  const badField = await srv.request('GET', `${foos}?fieldSelector=spec.replicas%3D1`);
  assert.equal(badField.status, 400);
  assert.equal(badField.json().message, '"spec.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"');
  const page = (await srv.request('GET', `${foos}?limit=1`)).json();
  assert.equal((page.items as unknown[]).length, 1);
  assert.ok((page.metadata as { continue?: string }).continue);

  // No resource version: Kubernetes refuses unconditional updates of custom resources.
  const unconditional = await srv.request('PUT', `${foos}/a`, { body: { apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'a' }, spec: { replicas: 3 } } });
  assert.equal(unconditional.status, 422, unconditional.body);

  // Status through /status only; the main resource keeps it.
  const withStatus = { ...a, status: { replicas: 2, selector: 'app=x' } };
  const st = await srv.request('PUT', `${foos}/a/status`, { body: withStatus });
  assert.equal(st.status, 200, st.body);
  assert.deepEqual(st.json().status, { replicas: 2, selector: 'app=x' });
  assert.equal(st.json().metadata?.generation, 1, 'a status write keeps the generation');
  const stObj = st.json();
  const upd = await srv.request('PUT', `${foos}/a`, { body: { ...stObj, spec: { replicas: 4 }, status: { replicas: 0 } } });
  assert.equal(upd.status, 200, upd.body);
  assert.equal(upd.json().metadata?.generation, 2);
  assert.deepEqual(upd.json().status, { replicas: 2, selector: 'app=x' });

  // Metadata changes keep the generation.
  const patched = await srv.request('PATCH', `${foos}/a`, { body: { metadata: { labels: { app: 'y' } } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
  assert.equal(patched.status, 200, patched.body);
  assert.equal(patched.json().metadata?.generation, 2);

  // Scale: read from the paths, written to spec.replicas.
  const scale = await srv.request('GET', `${foos}/a/scale`);
  assert.equal(scale.status, 200, scale.body);
  assert.deepEqual([scale.json().kind, scale.json().apiVersion, scale.json().spec, scale.json().status], ['Scale', 'autoscaling/v1', { replicas: 4 }, { replicas: 2, selector: 'app=x' }]);
  const scaled = await srv.request('PATCH', `${foos}/a/scale`, { body: { spec: { replicas: 7 } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
  assert.equal(scaled.status, 200, scaled.body);
  assert.equal(((await srv.request('GET', `${foos}/a`)).json().spec as { replicas: number }).replicas, 7);

  // Scale paths are validated on writes.
  const negative = await srv.request('POST', foos, { body: { apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'neg' }, spec: { replicas: -1 } } });
  assert.equal(negative.status, 422);
  assert.match(String(negative.json().message), /\.spec\.replicas: Invalid value: -1: should be a non-negative integer/);
  const wrongType = await srv.request('POST', foos, { body: { apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'neg' }, spec: { replicas: 'x' } } });
  assert.match(String(wrongType.json().message), /\.spec\.replicas: Invalid value: 0: \.spec\.replicas accessor error: x is of the type string, expected int64/);

  // Dry run stores nothing.
  const dry = await srv.request('POST', `${foos}?dryRun=All`, { body: { apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'dry' }, spec: {} } });
  assert.equal(dry.status, 201, dry.body);
  assert.equal((await srv.request('GET', `${foos}/dry`)).status, 404);

  // The deprecated version serves the same objects.
  const beta = await srv.request('GET', '/apis/example.com/v1beta1/namespaces/default/foos/a');
  assert.equal(beta.status, 200, beta.body);
  assert.equal(beta.json().apiVersion, 'example.com/v1beta1');

  // Table with the printer columns.
  const table = await srv.request('GET', foos, { headers: { Accept: `application/json;as=Table;v=v1;g=${metaGroup()}` } });
  assert.equal(table.status, 200, table.body);
  const t = table.json() as unknown as { columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] };
  assert.deepEqual(t.columnDefinitions.map((c) => c.name), ['Name', 'Replicas']);
  assert.deepEqual(
    t.rows.map((r) => r.cells),
    [
      ['a', 7],
      ['b', 1],
    ],
  );

  // Finalizers hold a deletion.
  const fin = await srv.request('PATCH', `${foos}/b`, { body: { metadata: { finalizers: ['example.com/hold'] } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
  assert.equal(fin.status, 200, fin.body);
  const held = await srv.request('DELETE', `${foos}/b`);
  assert.equal(held.status, 200, held.body);
  assert.ok((await srv.request('GET', `${foos}/b`)).json().metadata?.deletionTimestamp);
  const release = await srv.request('PATCH', `${foos}/b`, { body: { metadata: { finalizers: null } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
  assert.equal(release.status, 200, release.body);
  assert.equal((await srv.request('GET', `${foos}/b`)).status, 404);
});

test('cluster-scoped custom resources', async () => {
  const created = await srv.request('POST', '/apis/example.com/v1/bars', { body: { apiVersion: 'example.com/v1', kind: 'Bar', metadata: { name: 'one' }, spec: { replicas: 1 } } });
  assert.equal(created.status, 201, created.body);
  assert.equal(created.json().metadata?.namespace, undefined);
  assert.equal((await srv.request('GET', '/apis/example.com/v1/bars/one')).status, 200);
  assert.equal((await srv.request('GET', '/apis/example.com/v1/namespaces/default/bars/one')).status, 404);
});

test('a terminating definition refuses creates; a removed one ends watches and answers 404', async () => {
  const def = crd('bazs', 'Baz', 'Namespaced');
  await establish(def);
  const bazs = '/apis/example.com/v1/namespaces/default/bazs';
  await eventually(async () => (await srv.request('GET', bazs)).status === 200, 'bazs served', 2000);
  assert.equal((await srv.request('POST', bazs, { body: { apiVersion: 'example.com/v1', kind: 'Baz', metadata: { name: 'x' }, spec: { replicas: 1 } } })).status, 201);

  const lines: string[] = [];
  const watch = srv.stream(`${bazs}?watch=true`, (l) => lines.push(l));
  await eventually(() => lines.length > 0, 'the initial ADDED event', 2000);

  await establish(def, [
    { type: 'Established', status: 'True' },
    { type: 'Terminating', status: 'True' },
  ]);
  const refused = await eventually(async () => {
    const res = await srv.request('POST', bazs, { body: { apiVersion: 'example.com/v1', kind: 'Baz', metadata: { name: 'y' }, spec: { replicas: 1 } } });
    return res.status === 405 ? res : undefined;
  }, 'creates refused', 2000);
  assert.deepEqual(
    { reason: refused.json().reason, message: refused.json().message },
    { reason: 'MethodNotAllowed', message: 'create not allowed while custom resource definition is terminating' },
  );
  assert.equal((await srv.request('GET', `${bazs}/x`)).status, 200, 'reads go on while terminating');

  const del = await srv.request('DELETE', `${crdPath()}/bazs.example.com`);
  assert.ok(del.status === 200 || del.status === 202, del.body);
  // This server runs no finalizer controller: release the cleanup finalizer as it would.
  const released = await srv.request('PATCH', `${crdPath()}/bazs.example.com`, { body: { metadata: { finalizers: null } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
  assert.ok(released.status === 200 || released.status === 404, released.body);
  await eventually(async () => (await srv.request('GET', bazs)).status === 404, 'bazs gone', 2000);
  const ended = await Promise.race([watch.done.then(() => true), new Promise((r) => setTimeout(() => r(false), 2000))]);
  assert.equal(ended, true, 'the open watch ended');
});

test('watch events of custom resources; a changed definition replaces the stores and open watches go on', async () => {
  const def = crd('quxes', 'Qux', 'Namespaced');
  await establish(def);
  const quxes = '/apis/example.com/v1/namespaces/default/quxes';
  await eventually(async () => (await srv.request('GET', quxes)).status === 200, 'quxes served', 2000);

  const events: { type: string; object: KubeObject }[] = [];
  const watch = srv.stream(`${quxes}?watch=true`, (l) => events.push(JSON.parse(l) as { type: string; object: KubeObject }));
  const created = await srv.request('POST', quxes, { body: { apiVersion: 'example.com/v1', kind: 'Qux', metadata: { name: 'q' }, spec: { replicas: 1 } } });
  assert.equal(created.status, 201, created.body);
  await eventually(() => events.some((e) => e.type === 'ADDED'), 'ADDED', 2000);

  // Stop serving v1beta1 and change the columns of v1.
  const current = (await srv.request('GET', `${crdPath()}/quxes.example.com`)).json();
  const spec = current.spec as { versions: Record<string, unknown>[] };
  spec.versions = [{ ...spec.versions[0], additionalPrinterColumns: [{ name: 'Wanted', type: 'integer', jsonPath: '.spec.replicas' }] }, { ...spec.versions[1], served: false }];
  const updated = await srv.request('PUT', `${crdPath()}/quxes.example.com`, { body: current });
  assert.equal(updated.status, 200, updated.body);
  await eventually(async () => (await srv.request('GET', '/apis/example.com/v1beta1/namespaces/default/quxes')).status === 404, 'v1beta1 gone', 2000);
  const table = await eventually(async () => {
    const t = (await srv.request('GET', quxes, { headers: { Accept: `application/json;as=Table;v=v1;g=${metaGroup()}` } })).json() as unknown as { columnDefinitions: { name: string }[] };
    return t.columnDefinitions.some((c) => c.name === 'Wanted') ? t : undefined;
  }, 'the new columns', 2000);
  assert.deepEqual(table.columnDefinitions.map((c) => c.name), ['Name', 'Wanted']);

  const q = (await srv.request('GET', `${quxes}/q`)).json();
  assert.equal((await srv.request('PUT', `${quxes}/q`, { body: { ...q, spec: { replicas: 2 } } })).status, 200);
  assert.equal((await srv.request('DELETE', `${quxes}/q`)).status, 200);
  await eventually(() => events.some((e) => e.type === 'DELETED'), 'DELETED', 2000);
  assert.deepEqual(
    events.filter((e) => e.type !== 'BOOKMARK').map((e) => [e.type, (e.object.spec as { replicas: number }).replicas, e.object.metadata?.generation]),
    [
      ['ADDED', 1, 1],
      ['MODIFIED', 2, 2],
      ['DELETED', 2, 2],
    ],
  );
  watch.close();
});

test('a definition naming a built-in resource does not replace it', async () => {
  const def = crd('widgets', 'Widget', 'Namespaced');
  const spec = def.spec as Record<string, unknown>;
  spec.group = 'widgets.testing';
  (def.metadata as Record<string, unknown>).name = 'widgets.widgets.testing';
  await establish(def);
  // Once its other version is served, the definition has been processed; v1 stays the built-in store.
  await eventually(() => srv.table.lookup({ group: 'widgets.testing', version: 'v1beta1' }, 'widgets')?.definition.customResource?.crdName === 'widgets.widgets.testing', 'v1beta1 served', 2000);
  assert.equal(srv.table.lookup({ group: 'widgets.testing', version: 'v1' }, 'widgets')?.definition.customResource, undefined);
});
