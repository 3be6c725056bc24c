import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import { emptyObjectOf, fieldManagerForKind, managerFromUserAgent } from './catalog.js';
import { FieldSet } from './fieldpath.js';
import { encodeLastApplied, lastAppliedAnnotation } from './last-applied.js';

const NOW = new Date('2026-01-02T03:04:05.678Z');
const deployments = () => fieldManagerForKind({ group: 'apps', version: 'v1', kind: 'Deployment', apiVersion: 'apps/v1', resetFields: ['status'], now: () => NOW });
const configMaps = () => fieldManagerForKind({ group: '', version: 'v1', kind: 'ConfigMap', apiVersion: 'v1', now: () => NOW });

function deployment(replicas: number, image = 'nginx'): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image, ports: [{ containerPort: 80 }] }] } },
    },
  };
}

function fieldsOf(obj: KubeObject, manager: string): unknown {
  return obj.metadata?.managedFields?.find((e) => e.manager === manager)?.fieldsV1;
}

function expectApiError(fn: () => unknown, code: number): ApiError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(e.code, code);
    return e;
  }
  assert.fail('expected an ApiError');
}

describe('FieldManager.update', () => {
  it('records a create against the Go empty object: "." only for what the request adds', () => {
    const created = deployments().update(emptyObjectOf({ group: 'apps', version: 'v1', kind: 'Deployment' }), deployment(1), 'kubectl-create');
    const entry = created.metadata?.managedFields?.[0];
    assert.deepEqual(
      { ...entry, fieldsV1: undefined },
      { manager: 'kubectl-create', operation: 'Update', apiVersion: 'apps/v1', time: '2026-01-02T03:04:05Z', fieldsType: 'FieldsV1', fieldsV1: undefined },
    );
    assert.deepEqual(entry?.fieldsV1, {
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': {
        'f:replicas': {},
        'f:selector': {},
        'f:template': {
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
          'f:spec': {
            'f:containers': {
              'k:{"name":"nginx"}': {
                '.': {},
                'f:image': {},
                'f:name': {},
                'f:ports': { '.': {}, 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
              },
            },
          },
        },
      },
    });
  });

  it('moves changed fields to the updater, drops managers left with nothing, merges same-manager entries', () => {
    const fm = configMaps();
    const v1 = fm.update(undefined, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } }, 'first');
    const v2 = fm.update(v1, { ...v1, data: { a: '2', b: '1' } }, 'second');
    // The first manager keeps the map it added as a whole; its key went to the second.
    assert.deepEqual(v2.metadata?.managedFields?.map((e) => [e.manager, e.fieldsV1]), [
      ['first', { 'f:data': {} }],
      ['second', { 'f:data': { 'f:a': {}, 'f:b': {} } }],
    ]);
    const v3 = fm.update(v2, { ...v2, data: { a: '2', b: '1', c: '1' } }, 'second');
    assert.equal(v3.metadata?.managedFields?.length, 2);
    assert.deepEqual(fieldsOf(v3, 'second'), { 'f:data': { 'f:a': {}, 'f:b': {}, 'f:c': {} } });
  });

  it('an update that changes nothing takes nothing and keeps the previous time', () => {
    const fm = configMaps();
    const v1 = fm.update(undefined, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } }, 'first');
    const later = fieldManagerForKind({ group: '', version: 'v1', kind: 'ConfigMap', apiVersion: 'v1', now: () => new Date('2030-01-01T00:00:00Z') });
    const v2 = later.update(v1, structuredClone(v1), 'other');
    assert.deepEqual(v2.metadata?.managedFields, v1.metadata?.managedFields);
  });

  it('a list with one empty entry resets managedFields; an empty list does not', () => {
    const fm = configMaps();
    const v1 = fm.update(undefined, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } }, 'first');
    const kept = fm.update(v1, { ...v1, metadata: { ...v1.metadata, managedFields: [] } }, 'other');
    assert.deepEqual(kept.metadata?.managedFields, v1.metadata?.managedFields);
    const reset = fm.update(v1, { ...v1, metadata: { ...v1.metadata, managedFields: [{}] } }, 'other');
    assert.equal(reset.metadata?.managedFields, undefined);
    const resetAndChange = fm.update(v1, { ...v1, metadata: { ...v1.metadata, managedFields: [{}] }, data: { a: '1', b: '2' } }, 'other');
    assert.deepEqual(resetAndChange.metadata?.managedFields?.map((e) => [e.manager, e.fieldsV1]), [['other', { 'f:data': { 'f:b': {} } }]]);
  });

  it('honours managedFields a client sends, except on a subresource', () => {
    const fm = configMaps();
    const v1 = fm.update(undefined, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } }, 'first');
    const sent = [{ manager: 'restored', operation: 'Apply' as const, apiVersion: 'v1', fieldsType: 'FieldsV1' as const, fieldsV1: { 'f:data': { 'f:a': {} } } }];
    const v2 = fm.update(v1, { ...v1, metadata: { ...v1.metadata, managedFields: sent } }, 'other');
    assert.deepEqual(v2.metadata?.managedFields, sent);
    const status = fieldManagerForKind({ group: '', version: 'v1', kind: 'ConfigMap', apiVersion: 'v1', subresource: 'status', resetFields: ['spec'], now: () => NOW });
    const v3 = status.update(v1, { ...v1, metadata: { ...v1.metadata, managedFields: sent } }, 'other');
    assert.deepEqual(v3.metadata?.managedFields, v1.metadata?.managedFields);
  });

  it('records status writes with their subresource and keeps status out of main-resource ownership', () => {
    const main = deployments();
    const created = main.update(undefined, { ...deployment(1), status: { replicas: 1 } }, 'creator');
    assert.equal(JSON.stringify(fieldsOf(created, 'creator')).includes('f:status'), false);
    const statusManager = fieldManagerForKind({ group: 'apps', version: 'v1', kind: 'Deployment', apiVersion: 'apps/v1', subresource: 'status', resetFields: ['spec'], now: () => NOW });
    const withStatus = statusManager.update(created, { ...created, status: { replicas: 2 } }, 'controller');
    const entry = withStatus.metadata?.managedFields?.find((e) => e.manager === 'controller');
    assert.equal(entry?.subresource, 'status');
    assert.deepEqual(entry?.fieldsV1, { 'f:status': { 'f:replicas': {} } });
  });
});

describe('FieldManager.apply', () => {
  it('creates from the configuration and owns exactly its fields', () => {
    const applied = deployments().apply(undefined, deployment(2), 'kubectl', false);
    assert.equal((applied.spec as { replicas: number }).replicas, 2);
    const entry = applied.metadata?.managedFields?.[0];
    assert.equal(entry?.operation, 'Apply');
    const metadata = (entry?.fieldsV1 as Record<string, Record<string, Record<string, unknown>>>)['f:metadata'];
    assert.deepEqual(Object.keys(metadata['f:labels']), ['f:app']);
  });

  it('answers 409 with the Kubernetes conflict Status, and force takes ownership', () => {
    const fm = deployments();
    const created = fm.update(emptyObjectOf({ group: 'apps', version: 'v1', kind: 'Deployment' }), deployment(1), 'kubectl-client-side-apply');
    const err = expectApiError(() => fm.apply(created, deployment(3), 'kubectl', false), 409);
    assert.deepEqual(err.status, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using apps/v1', field: '.spec.replicas' }] },
      code: 409,
    });
    const forced = fm.apply(created, deployment(3), 'kubectl', true);
    assert.equal((forced.spec as { replicas: number }).replicas, 3);
    const other = forced.metadata?.managedFields?.find((e) => e.manager === 'kubectl-client-side-apply');
    assert.equal(JSON.stringify(other?.fieldsV1).includes('f:replicas'), false);
  });

  it('lists several conflicts by manager', () => {
    const fm = deployments();
    const created = fm.update(emptyObjectOf({ group: 'apps', version: 'v1', kind: 'Deployment' }), deployment(1), 'editor');
    const err = expectApiError(() => fm.apply(created, deployment(3, 'nginx:2'), 'kubectl', false), 409);
    assert.equal(
      err.message,
      'Apply failed with 2 conflicts: conflicts with "editor" using apps/v1:\n- .spec.replicas\n- .spec.template.spec.containers[name="nginx"].image',
    );
    assert.deepEqual(err.status.details?.causes?.map((c) => c.field), ['.spec.replicas', '.spec.template.spec.containers[name="nginx"].image']);
  });

  it('groups the conflicts of several managers, by manager, with a cause per field', () => {
    const fm = configMaps();
    const v1 = fm.update(undefined, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { x: '1', z: '1' } }, 'b-editor');
    const v2 = fm.update(v1, { ...v1, data: { x: '1', y: '1', z: '1' } }, 'a-editor');
    const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { x: '2', y: '2', z: '2' } };
    const err = expectApiError(() => fm.apply(v2, config, 'c', false), 409);
    assert.deepEqual(err.status, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 3 conflicts: conflicts with "a-editor" using v1:\n- .data.y\nconflicts with "b-editor" using v1:\n- .data.x\n- .data.z',
      reason: 'Conflict',
      details: {
        causes: [
          { reason: 'FieldManagerConflict', message: 'conflict with "a-editor" using v1', field: '.data.y' },
          { reason: 'FieldManagerConflict', message: 'conflict with "b-editor" using v1', field: '.data.x' },
          { reason: 'FieldManagerConflict', message: 'conflict with "b-editor" using v1', field: '.data.z' },
        ],
      },
      code: 409,
    });
  });

  it('the same value is shared ownership; a later change by one of them conflicts with the other', () => {
    const fm = deployments();
    const a = fm.apply(undefined, deployment(2), 'a', false);
    const ab = fm.apply(a, deployment(2), 'b', false);
    assert.deepEqual(ab.metadata?.managedFields?.map((e) => e.manager).sort(), ['a', 'b']);
    const err = expectApiError(() => fm.apply(ab, deployment(5), 'a', false), 409);
    assert.match(err.message, /conflict with "b": \.spec\.replicas$/);
  });

  it('removes fields the manager no longer applies unless another manager owns them', () => {
    const fm = configMaps();
    const cm = (data: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data });
    const v1 = fm.apply(undefined, cm({ a: '1', b: '2', c: '3' }), 'applier', false);
    const v2 = fm.update(v1, { ...v1, data: { a: '1', b: '2', c: '4' } }, 'editor');
    const v3 = fm.apply(v2, cm({ a: '1' }), 'applier', false);
    assert.deepEqual(v3.data, { a: '1', c: '4' });
  });

  it('merges list-maps by key, sets as a union and replaces atomic lists', () => {
    const fm = deployments();
    const base = fm.apply(undefined, deployment(1), 'a', false);
    const second: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', finalizers: ['x/y'] },
      spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'busybox', command: ['sleep', '1'] }] } } },
    };
    const merged = fm.apply(base, second, 'b', false);
    const containers = ((merged.spec as Record<string, Record<string, Record<string, unknown>>>).template.spec.containers as { name: string }[]).map((c) => c.name);
    assert.deepEqual(containers, ['nginx', 'sidecar']);
    const third = structuredClone(second);
    ((third.spec as Record<string, Record<string, Record<string, unknown>>>).template.spec.containers as Record<string, unknown>[])[0].command = ['true'];
    third.metadata = { name: 'web', finalizers: ['x/z'] };
    const again = fm.apply(merged, third, 'b', false);
    const sidecar = ((again.spec as Record<string, Record<string, Record<string, unknown>>>).template.spec.containers as Record<string, unknown>[])[1];
    assert.deepEqual(sidecar.command, ['true']);
    assert.deepEqual(again.metadata?.finalizers, ['x/z']);
  });

  it('refuses a configuration that carries managedFields', () => {
    const err = expectApiError(() => configMaps().apply(undefined, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', managedFields: [] } }, 'm', false), 400);
    assert.equal(err.message, 'metadata.managedFields must be nil');
  });

});

describe('managerFromUserAgent', () => {
  it('takes the User-Agent up to its first slash', () => {
    assert.equal(managerFromUserAgent('kubectl/v1.27.3 (linux/amd64) kubernetes/25b4e43'), 'kubectl');
    assert.equal(managerFromUserAgent('a\u0001b'), 'ab');
    assert.equal(managerFromUserAgent('x'.repeat(200)).length, 128);
    assert.equal(managerFromUserAgent(undefined), '');
  });
});

describe('untyped objects', () => {
  it('custom resources: every key is owned, lists are atomic', () => {
    const fm = fieldManagerForKind({ group: 'example.com', version: 'v1', kind: 'Thing', apiVersion: 'example.com/v1', now: () => NOW });
    const obj = fm.apply(undefined, { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't' }, spec: { items: [1, 2], size: 3 } }, 'm', false);
    const set = FieldSet.fromFieldsV1(obj.metadata?.managedFields?.[0]?.fieldsV1);
    assert.deepEqual(set.toFieldsV1(), { 'f:spec': { '.': {}, 'f:items': {}, 'f:size': {} } });
  });
});

describe('the cap on Update entries', () => {
  it('folds the oldest updaters of a version into ancient-changes, keeping ten', () => {
    let obj: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: {} };
    for (let i = 0; i < 12; i++) {
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i));
      const fm = fieldManagerForKind({ group: '', version: 'v1', kind: 'ConfigMap', apiVersion: 'v1', now: () => at });
      obj = fm.update(obj, { ...obj, data: { ...(obj.data as Record<string, string>), [`k${i}`]: 'v' } }, `m${i}`);
    }
    const entries = obj.metadata?.managedFields ?? [];
    assert.equal(entries.length, 10);
    const ancient = entries.find((e) => e.manager === 'ancient-changes');
    assert.equal(ancient?.time, '2026-01-01T00:00:02Z');
    assert.deepEqual(Object.keys((ancient?.fieldsV1 as Record<string, Record<string, unknown>>)['f:data']).sort(), ['f:k0', 'f:k1', 'f:k2']);
    assert.equal(entries.some((e) => e.manager === 'm2'), false);
    assert.equal(entries.some((e) => e.manager === 'm3'), true);
  });
});

describe('configurations the schema cannot read', () => {
  it('answer a bare 500 naming the undeclared field, as Kubernetes 1.27 does', () => {
    const bad = deployment(1);
    (bad.spec as Record<string, unknown>).bogus = 1;
    const err = expectApiError(() => deployments().apply(undefined, bad, 'm', false), 500);
    assert.equal(err.message, 'failed to create typed patch object (default/web; apps/v1, Kind=Deployment): .spec.bogus: field not declared in schema');
    assert.equal(err.status.reason, undefined);
  });

  it('name the keyed-list entry that lacks its key', () => {
    const bad = deployment(1);
    ((bad.spec as Record<string, Record<string, Record<string, unknown>>>).template.spec.containers as Record<string, unknown>[])[0] = { image: 'x' };
    const err = expectApiError(() => deployments().apply(undefined, bad, 'm', false), 500);
    assert.match(err.message, /: \.spec\.template\.spec\.containers: element 0: associative list with keys has an element that omits key field "name" \(and doesn't have default value\)$/);
  });
});

describe('a repeated apply', () => {
  it('hands back the live object unchanged, key order included', () => {
    const fm = deployments();
    const first = fm.apply(undefined, deployment(2), 'kubectl', false);
    const stored = { ...first, metadata: { ...first.metadata, uid: 'u', resourceVersion: '5' } };
    const again = fm.apply(stored, deployment(2), 'kubectl', false);
    assert.equal(JSON.stringify(again), JSON.stringify(stored));
  });
});

describe('an unnamed manager', () => {
  it('is written without a manager field, as Go omits the empty name', () => {
    const obj = configMaps().update(undefined, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } }, '');
    const entry = obj.metadata?.managedFields?.[0];
    assert.deepEqual(Object.keys(entry ?? {}), ['operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1']);
  });
});

describe('fields an applier gives up', () => {
  it('a struct nobody owns anything under any more goes as a whole; list entries go whole', () => {
    const fm = deployments();
    const base = deployment(1);
    const spec = base.spec as Record<string, Record<string, Record<string, unknown>>>;
    (spec.template.spec.containers as unknown[]).push({ name: 'sidecar', image: 'busybox' });
    (base.spec as Record<string, unknown>).strategy = { rollingUpdate: { maxSurge: 1 } };
    const v1 = fm.apply(undefined, base, 'a', false);
    const v2 = fm.update(v1, structuredClone(v1), 'noop');
    const next = deployment(1);
    const v3 = fm.apply(v2, next, 'a', false);
    assert.equal((v3.spec as Record<string, unknown>).strategy, undefined);
    const names = ((v3.spec as Record<string, Record<string, Record<string, unknown>>>).template.spec.containers as { name: string }[]).map((c) => c.name);
    assert.deepEqual(names, ['nginx']);
  });
});

describe('ownership recorded under another schema', () => {
  it('granular ownership inside a now-atomic value becomes ownership of the whole value', () => {
    const fm = deployments();
    const v1 = fm.apply(undefined, deployment(1), 'a', false);
    // `spec.selector` is atomic: an entry that owns a key inside it owns the selector.
    const sent = [
      ...(v1.metadata?.managedFields ?? []),
      { manager: 'old', operation: 'Update' as const, apiVersion: 'apps/v1', fieldsType: 'FieldsV1' as const, fieldsV1: { 'f:spec': { 'f:selector': { 'f:matchLabels': { 'f:app': {} } } } } },
    ];
    const stored = { ...v1, metadata: { ...v1.metadata, managedFields: sent } };
    const next = deployment(1);
    (next.spec as Record<string, unknown>).selector = { matchLabels: { app: 'other' } };
    const err = expectApiError(() => fm.apply(stored, next, 'a', false), 409);
    assert.match(err.message, /conflict with "old" using apps\/v1: \.spec\.selector$/);
  });
});

describe('fields the endpoint resets', () => {
  it('status applied to the main resource neither conflicts with nor takes from the status owner', () => {
    const statusManager = fieldManagerForKind({ group: 'apps', version: 'v1', kind: 'Deployment', apiVersion: 'apps/v1', subresource: 'status', resetFields: ['spec'], now: () => NOW });
    const v1 = deployments().apply(undefined, deployment(1), 'a', false);
    const v2 = statusManager.update(v1, { ...v1, status: { replicas: 1 } }, 'controller');
    const config = { ...deployment(1), status: { replicas: 7 } };
    const v3 = deployments().apply(v2, config, 'a', false);
    const entry = v3.metadata?.managedFields?.find((e) => e.manager === 'controller');
    assert.deepEqual(entry?.fieldsV1, { 'f:status': { '.': {}, 'f:replicas': {} } });
  });
});

describe('the first apply to an object without managed fields', () => {
  const empty = () => emptyObjectOf({ group: 'apps', version: 'v1', kind: 'Deployment' });

  it('gives what the object holds to a before-first-apply updater, which shares or conflicts', () => {
    const fm = deployments();
    const created = fm.update(empty(), deployment(1), 'creator');
    const reset = fm.update(created, { ...created, metadata: { ...created.metadata, managedFields: [{}] } }, 'resetter');
    assert.equal(reset.metadata?.managedFields, undefined);
    const applied = fm.apply(reset, deployment(1), 'applier', false);
    const before = applied.metadata?.managedFields?.find((e) => e.manager === 'before-first-apply');
    assert.deepEqual({ ...before, fieldsV1: undefined }, { manager: 'before-first-apply', operation: 'Update', apiVersion: 'apps/v1', time: '2026-01-02T03:04:05Z', fieldsType: 'FieldsV1', fieldsV1: undefined });
    // Everything the creator had set, the same values applied now are shared.
    assert.deepEqual(before?.fieldsV1, fieldsOf(created, 'creator'));
    assert.deepEqual(applied.metadata?.managedFields?.map((e) => [e.manager, e.operation]), [['applier', 'Apply'], ['before-first-apply', 'Update']]);

    const err = expectApiError(() => fm.apply(reset, deployment(3), 'applier', false), 409);
    assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "before-first-apply" using apps/v1: .spec.replicas');
    const forced = fm.apply(reset, deployment(3), 'applier', true);
    assert.equal(JSON.stringify(fieldsOf(forced, 'before-first-apply')).includes('f:replicas'), false);
  });

  it('is not recorded when the apply creates the object or ownership is already tracked', () => {
    const fm = deployments();
    const created = fm.apply(undefined, deployment(1), 'applier', false);
    assert.deepEqual(created.metadata?.managedFields?.map((e) => e.manager), ['applier']);
    const tracked = fm.update(empty(), deployment(1), 'creator');
    const applied = fm.apply(tracked, deployment(1), 'applier', false);
    assert.deepEqual(applied.metadata?.managedFields?.map((e) => e.manager), ['applier', 'creator']);
  });
});

describe('kubectl moving from client-side to server-side apply', () => {
  const key = lastAppliedAnnotation();
  const empty = () => emptyObjectOf({ group: 'apps', version: 'v1', kind: 'Deployment' });
  /** What `kubectl apply` (client-side) leaves: the object, its annotation and its manager. */
  function clientSideApplied(obj: KubeObject): KubeObject {
    const annotated = structuredClone(obj);
    annotated.metadata = { ...annotated.metadata, annotations: { [key]: `${JSON.stringify(obj)}\n` } };
    return deployments().update(empty(), annotated, 'kubectl-client-side-apply');
  }

  it('takes over the fields of the annotation that still hold its values, and rewrites the annotation', () => {
    const live = clientSideApplied(deployment(1));
    const applied = deployments().apply(live, deployment(3), 'kubectl', false);
    assert.equal((applied.spec as { replicas: number }).replicas, 3);
    assert.equal(JSON.stringify(fieldsOf(applied, 'kubectl-client-side-apply')).includes('f:replicas'), false);
    assert.equal(
      applied.metadata?.annotations?.[key],
      '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"labels":{"app":"web"},"name":"web","namespace":"default"},' +
        '"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},' +
        '"spec":{"containers":[{"image":"nginx","name":"nginx","ports":[{"containerPort":80}]}]}}}}\n',
    );
  });

  it('still conflicts for another manager, or over values changed since the client-side apply', () => {
    const live = clientSideApplied(deployment(1));
    const err = expectApiError(() => deployments().apply(live, deployment(3), 'bob', false), 409);
    assert.match(err.message, /conflict with "kubectl-client-side-apply" using apps\/v1: \.spec\.replicas$/);
    assert.equal(deployments().apply(live, deployment(1), 'bob', false).metadata?.annotations?.[key], live.metadata?.annotations?.[key]);

    // An editor changed the image since: only that conflict remains.
    const edited = structuredClone(live);
    ((edited.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0]).image = 'nginx:2';
    const editedLive = deployments().update(live, edited, 'editor');
    const remaining = expectApiError(() => deployments().apply(editedLive, deployment(3, 'nginx:3'), 'kubectl', false), 409);
    assert.deepEqual(remaining.status.details, {
      causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "editor" using apps/v1', field: '.spec.template.spec.containers[name="nginx"].image' }],
    });
    assert.equal(remaining.message, 'Apply failed with 1 conflict: conflict with "editor" using apps/v1: .spec.template.spec.containers[name="nginx"].image');
  });

  it('leaves an annotation of another version, or none, alone', () => {
    const other = clientSideApplied(deployment(1));
    other.metadata!.annotations![key] = JSON.stringify({ ...deployment(1), apiVersion: 'apps/v1beta2' });
    expectApiError(() => deployments().apply(other, deployment(3), 'kubectl', false), 409);
    const none = deployments().update(empty(), deployment(1), 'kubectl-client-side-apply');
    const applied = deployments().apply(none, deployment(1), 'kubectl', false);
    assert.equal(applied.metadata?.annotations, undefined);
  });
});

describe('the last-applied annotation value', () => {
  it('is Go JSON of the configuration without the annotation: sorted keys, HTML characters escaped, a final newline', () => {
    const key = lastAppliedAnnotation();
    const config = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c', annotations: { [key]: 'old' } }, data: { z: '<a&b>\u2028', a: 'tab\there\u0001' } };
    assert.equal(encodeLastApplied(config), '{"apiVersion":"v1","data":{"a":"tab\\there\\u0001","z":"\\u003ca\\u0026b\\u003e\\u2028"},"kind":"ConfigMap","metadata":{"name":"c"}}\n');
  });
});
