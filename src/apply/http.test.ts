// Server-side apply over HTTPS against an in-process server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Status } from '../apimachinery/errors.js';
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
const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };

describe('server-side apply over HTTP', () => {
  it('requires fieldManager with the PatchOptions message', async () => {
    const r = await t.request('PATCH', `${CM}/a0`, { body: 'apiVersion: v1\nkind: ConfigMap\n', headers: APPLY });
    assert.equal(r.status, 422, r.body);
    const status = r.json() as unknown as Status;
    assert.equal(status.reason, 'Invalid');
    assert.equal(status.code, 422);
    assert.equal(status.message, `PatchOptions.${metaGroup()} "" is invalid: fieldManager: Required value: is required for apply patch`);
    assert.equal(status.details?.group, metaGroup());
    assert.equal(status.details?.kind, 'PatchOptions');
    assert.deepEqual(status.details?.causes, [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }]);
  });

  it('creates with a YAML body, conflicts with another manager, and force takes the field', async () => {
    const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a1\ndata:\n  k: one\n';
    const created = await t.request('PATCH', `${CM}/a1?fieldManager=alice`, { body, headers: APPLY });
    assert.equal(created.status, 201, created.body);
    const entry = created.json().metadata?.managedFields?.[0];
    assert.equal(entry?.manager, 'alice');
    assert.equal(entry?.operation, 'Apply');
    assert.equal(entry?.apiVersion, 'v1');
    assert.match(String(entry?.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(entry?.fieldsV1, { 'f:data': { 'f:k': {} } });

    const json = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a1' }, data: { k: 'two' } });
    const conflict = await t.request('PATCH', `${CM}/a1?fieldManager=bob&force=false`, { body: json, headers: APPLY });
    assert.equal(conflict.status, 409, conflict.body);
    assert.deepEqual(conflict.json(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "alice": .data.k',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.k' }] },
      code: 409,
    });

    const dry = await t.request('PATCH', `${CM}/a1?fieldManager=bob&force=true&dryRun=All`, { body: json, headers: APPLY });
    assert.equal(dry.status, 200, dry.body);
    assert.deepEqual((await t.request('GET', `${CM}/a1`)).json().data, { k: 'one' });

    const forced = await t.request('PATCH', `${CM}/a1?fieldManager=bob&force=true`, { body: json, headers: APPLY });
    assert.equal(forced.status, 200, forced.body);
    assert.deepEqual(forced.json().data, { k: 'two' });
    assert.deepEqual(forced.json().metadata?.managedFields?.map((e) => e.manager), ['bob']);
  });

  it('records updates by fieldManager and refuses managedFields in an apply body', async () => {
    const created = await t.request('POST', `${CM}?fieldManager=creator`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a2' }, data: { x: '1' } } });
    assert.equal(created.status, 201, created.body);
    assert.deepEqual(created.json().metadata?.managedFields?.map((e) => [e.manager, e.operation, e.fieldsV1]), [
      ['creator', 'Update', { 'f:data': { '.': {}, 'f:x': {} } }],
    ]);
    const bad = await t.request('PATCH', `${CM}/a2?fieldManager=m`, {
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a2', managedFields: [] } }),
      headers: APPLY,
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.json().message, 'metadata.managedFields must be nil');
    const wrongVersion = await t.request('PATCH', `${CM}/a2?fieldManager=m`, { body: 'apiVersion: v2\nkind: ConfigMap\n', headers: APPLY });
    assert.equal(wrongVersion.status, 400);
    assert.equal(wrongVersion.json().message, 'Incorrect version specified in apply patch. Specified patch version: v2, expected: v1');
  });

  it('applies to the status subresource as its own manager; the main resource owns no status', async () => {
    const W = '/apis/widgets.testing/v1/namespaces/default/widgets';
    const main = JSON.stringify({ apiVersion: 'widgets.testing/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 3 }, status: { ready: true } });
    const created = await t.request('PATCH', `${W}/w1?fieldManager=owner`, { body: main, headers: APPLY });
    assert.equal(created.status, 201, created.body);
    assert.equal(created.json().status, undefined);
    assert.deepEqual(created.json().metadata?.managedFields?.map((e) => [e.manager, e.fieldsV1]), [['owner', { 'f:spec': { '.': {}, 'f:size': {} } }]]);

    const status = JSON.stringify({ apiVersion: 'widgets.testing/v1', kind: 'Widget', metadata: { name: 'w1' }, status: { ready: true } });
    const updated = await t.request('PATCH', `${W}/w1/status?fieldManager=controller`, { body: status, headers: APPLY });
    assert.equal(updated.status, 200, updated.body);
    assert.deepEqual(updated.json().status, { ready: true });
    const entry = updated.json().metadata?.managedFields?.find((e) => e.manager === 'controller');
    assert.equal(entry?.subresource, 'status');
    assert.deepEqual(entry?.fieldsV1, { 'f:status': { '.': {}, 'f:ready': {} } });

    const missing = await t.request('PATCH', `${W}/nope/status?fieldManager=controller`, { body: status.replace('"w1"', '"nope"'), headers: APPLY });
    assert.equal(missing.status, 404);
  });

  it('a merge patch of managedFields to [{}] strips them; an empty list keeps them; scale writes are recorded as such', async () => {
    const created = await t.request('POST', `${CM}?fieldManager=creator`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a3' }, data: { x: '1' } } });
    assert.equal(created.status, 201, created.body);
    const merge = { 'Content-Type': 'application/merge-patch+json' };
    const kept = await t.request('PATCH', `${CM}/a3?fieldManager=patcher`, { body: { metadata: { managedFields: [] } }, headers: merge });
    assert.deepEqual(kept.json().metadata?.managedFields?.map((e) => e.manager), ['creator']);
    const stripped = await t.request('PATCH', `${CM}/a3?fieldManager=patcher`, { body: { metadata: { managedFields: [{}] } }, headers: merge });
    assert.equal(stripped.status, 200, stripped.body);
    assert.equal(stripped.json().metadata?.managedFields, undefined);
    // The first apply after the reset: the fields already there go to before-first-apply.
    const conflicting = await t.request('PATCH', `${CM}/a3?fieldManager=applier`, { body: 'apiVersion: v1\nkind: ConfigMap\ndata:\n  x: "2"\n', headers: APPLY });
    assert.equal(conflicting.status, 409, conflicting.body);
    assert.equal(conflicting.json().message, 'Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.x');
    const shared = await t.request('PATCH', `${CM}/a3?fieldManager=applier`, { body: 'apiVersion: v1\nkind: ConfigMap\ndata:\n  x: "1"\n', headers: APPLY });
    assert.equal(shared.status, 200, shared.body);
    assert.deepEqual(
      shared.json().metadata?.managedFields?.map((e) => [e.manager, e.operation, e.fieldsV1]),
      [
        ['applier', 'Apply', { 'f:data': { 'f:x': {} } }],
        ['before-first-apply', 'Update', { 'f:data': { '.': {}, 'f:x': {} } }],
      ],
    );

    const W = '/apis/widgets.testing/v1/namespaces/default/widgets';
    const w = await t.request('POST', `${W}?fieldManager=creator`, { body: { apiVersion: 'widgets.testing/v1', kind: 'Widget', metadata: { name: 'w2' }, spec: { size: 1 } } });
    assert.equal(w.status, 201, w.body);
    const scaled = await t.request('PATCH', `${W}/w2/scale?fieldManager=scaler`, { body: { spec: { replicas: 4 } }, headers: merge });
    assert.equal(scaled.status, 200, scaled.body);
    const after = (await t.request('GET', `${W}/w2`)).json();
    const entry = after.metadata?.managedFields?.find((e) => e.manager === 'scaler');
    assert.equal(entry?.subresource, 'scale');
    assert.equal(entry?.operation, 'Update');
  });
});
