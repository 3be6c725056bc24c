import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isApiError } from '../apimachinery/errors.js';
import type { KubeObject, WatchEvent } from '../apimachinery/types.js';
import { MemoryStorage } from '../storage/index.js';
import type { GenericStore } from './store.js';
import { buildResourceTable, type DefaultResourceTable } from './table.js';
import { serveSubresourceHandler } from './subresources.js';
import { TEST_GROUP, gizmoDefinition, requestContext, widgetDefinition, widgetStrategy, widgetV2Definition } from '../testing/registry.js';
import type { RESTStore, SubresourceStore } from '../rest/index.js';

async function rejects(p: Promise<unknown>, code: number, reason?: string, message?: string | RegExp): Promise<void> {
  try {
    await p;
  } catch (e) {
    assert.ok(isApiError(e), `expected an ApiError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (reason) assert.equal(e.reason, reason);
    if (typeof message === 'string') assert.equal(e.message, message);
    else if (message) assert.match(e.message, message);
    return;
  }
  assert.fail(`expected a ${code} error`);
}

function widget(name: string, extra: Record<string, unknown> = {}, labels?: Record<string, string>): KubeObject {
  return { apiVersion: `${TEST_GROUP}/v1`, kind: 'Widget', metadata: { name, ...(labels ? { labels } : {}) }, spec: { size: 2, ...extra } };
}

const ctx = requestContext();
const noDry = { dryRun: false };

/** Collects `n` events (or fewer when the stream ends), aborting the watch afterwards. */
async function collect(store: RESTStore, namespace: string, opts: Parameters<NonNullable<RESTStore['watch']>>[2], n: number, during?: () => Promise<void>): Promise<WatchEvent[]> {
  const ac = new AbortController();
  const stream = await store.watch!(requestContext(ac.signal), namespace, opts);
  const events: WatchEvent[] = [];
  const reading = (async () => {
    for await (const ev of stream) {
      events.push(ev);
      if (events.length >= n) break;
    }
  })();
  if (during) await during();
  const guard = setTimeout(() => ac.abort(), 5000);
  await reading;
  clearTimeout(guard);
  ac.abort();
  return events;
}

function summary(events: WatchEvent[]): string[] {
  return events.map((e) => `${e.type} ${e.object.metadata?.name ?? e.object.metadata?.resourceVersion ?? ''}`);
}

describe('GenericStore', () => {
  let storage: MemoryStorage;
  let table: DefaultResourceTable;
  let widgets: GenericStore;
  let widgetsV2: GenericStore;
  let gizmos: GenericStore;

  before(() => {
    storage = new MemoryStorage();
    table = buildResourceTable([widgetDefinition(), widgetV2Definition(), gizmoDefinition()], storage, { waitTimeoutMs: 200 });
    widgets = table.lookup({ group: TEST_GROUP, version: 'v1' }, 'widgets') as GenericStore;
    widgetsV2 = table.lookup({ group: TEST_GROUP, version: 'v2' }, 'widgets') as GenericStore;
    gizmos = table.lookup({ group: TEST_GROUP, version: 'v1' }, 'gizmos') as GenericStore;
  });

  /** A subresource of widgets/v1, from the table. */
  const sub = (name: string): SubresourceStore => {
    const found = table.lookupSubresource({ group: TEST_GROUP, version: 'v1' }, 'widgets', name);
    assert.ok(found, `widgets/${name} is served`);
    return found;
  };

  after(async () => {
    await table.stop();
    await storage.close();
  });

  test('create sets server fields and stores without a resource version', async () => {
    const created = await widgets.create(ctx, 'ns1', widget('a'), noDry);
    const m = created.metadata!;
    assert.equal(m.namespace, 'ns1');
    assert.match(m.uid ?? '', /^[0-9a-f-]{36}$/);
    assert.match(String(m.creationTimestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(m.generation, 1);
    assert.equal(created.apiVersion, `${TEST_GROUP}/v1`);
    assert.deepEqual(created.spec, { size: 2 });
    const { item } = await storage.get(`/registry/${TEST_GROUP}/widgets/ns1/a`);
    assert.ok(item);
    assert.equal(m.resourceVersion, String(item.modRevision));
    const stored = JSON.parse(new TextDecoder().decode(item.value));
    assert.equal(stored.metadata.resourceVersion, undefined);
    assert.equal(stored.metadata.uid, m.uid);
  });

  test('create: conflicts, namespaces, names, validation, admission, dry run', async () => {
    await rejects(widgets.create(ctx, 'ns1', widget('a'), noDry), 409, 'AlreadyExists', `widgets.${TEST_GROUP} "a" already exists`);
    await rejects(
      widgets.create(ctx, 'ns1', { ...widget('rv'), metadata: { name: 'rv', resourceVersion: '5' } }, noDry),
      500,
      '',
      'resourceVersion should not be set on objects to be created',
    );
    await rejects(
      widgets.create(ctx, 'ns1', { ...widget('b'), metadata: { name: 'b', namespace: 'other' } }, noDry),
      400,
      'BadRequest',
      'the namespace of the provided object does not match the namespace sent on the request',
    );
    await rejects(widgets.create(ctx, 'ns1', widget('Bad_Name'), noDry), 422, 'Invalid', /^Widget\.widgets\.testing "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
    await rejects(widgets.create(ctx, 'ns1', widget('..'), noDry), 422, 'Invalid', /metadata\.name: Invalid value: "\.\.": may not be '\.\.'/);
    await rejects(widgets.create(ctx, 'ns1', { spec: {} }, noDry), 422, 'Invalid', /metadata\.name: Required value: name or generateName is required/);
    await rejects(widgets.create(ctx, 'ns1', widget('neg', { size: -1 }), noDry), 422, 'Invalid', 'Widget.widgets.testing "neg" is invalid: spec.size: Invalid value: -1: must be greater than or equal to 0');
    await rejects(widgets.create(ctx, 'ns1', widget('lbl', {}, { 'bad key!': 'v' }), noDry), 422, 'Invalid', /metadata\.labels: Invalid value: "bad key!"/);
    await rejects(widgets.create(ctx, 'ns1', { metadata: { name: 'shape', finalizers: {} as string[], labels: 'x' as unknown as Record<string, string> } }, noDry), 422, 'Invalid', /metadata\.finalizers: Invalid value: \{\}: must be a list/);
    let admitted: KubeObject | undefined;
    await rejects(
      widgets.create(ctx, 'ns1', widget('denied'), {
        dryRun: false,
        validate: async (obj) => {
          admitted = obj;
          throw new (await import('../apimachinery/errors.js')).ApiError(403, 'Forbidden', 'denied by policy');
        },
      }),
      403,
    );
    assert.equal(admitted?.metadata?.name, 'denied');
    await rejects(widgets.get(ctx, 'ns1', 'denied', {}), 404, 'NotFound', `widgets.${TEST_GROUP} "denied" not found`);

    const dry = await widgets.create(ctx, 'ns1', widget('dry'), { dryRun: true });
    assert.equal(dry.metadata?.name, 'dry');
    assert.equal(dry.metadata?.resourceVersion, undefined);
    await rejects(widgets.get(ctx, 'ns1', 'dry', {}), 404);
    await rejects(widgets.create(ctx, 'ns1', widget('a'), { dryRun: true }), 409, 'AlreadyExists');

    const fromBody = await widgets.create(ctx, '', { ...widget('body-ns'), metadata: { name: 'body-ns', namespace: 'ns2' } }, noDry);
    assert.equal((await widgets.get(ctx, 'ns2', 'body-ns', {})).metadata?.uid, fromBody.metadata?.uid);
    await rejects(widgets.create(ctx, '', widget('no-ns'), noDry), 422, 'Invalid', /metadata\.namespace: Required value/);
    await rejects(widgets.get(ctx, '', 'a', {}), 400, 'BadRequest', 'Namespace parameter required.');
    const generated = await widgets.create(ctx, 'ns1', { spec: {}, metadata: { generateName: 'gen-' } }, noDry);
    assert.match(generated.metadata?.name ?? '', /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.deepEqual(generated.spec, { size: 1 });

    const cluster = await gizmos.create(ctx, '', { metadata: { name: 'g1', namespace: 'ignored' }, spec: {} }, noDry);
    // A kind without status and scale declares neither: the table serves no such subresource.
    assert.equal(table.lookupSubresource(gizmos.definition, 'gizmos', 'status'), undefined);
    assert.equal(table.lookupSubresource(gizmos.definition, 'gizmos', 'scale'), undefined);
    const dryCreate = await gizmos.update(ctx, '', 'g-dry', () => ({ metadata: { name: 'g-dry' }, spec: {} }), { dryRun: true });
    assert.equal(dryCreate.created, true);
    assert.equal(dryCreate.object.metadata?.resourceVersion, undefined);
    await rejects(gizmos.get(ctx, '', 'g-dry', {}), 404);
    assert.equal(cluster.metadata?.namespace, undefined);
    assert.equal(cluster.kind, 'Gizmo');
  });

  test('get honours the resource version rules', async () => {
    const created = await widgets.create(ctx, 'ns1', widget('g'), noDry);
    const rv = created.metadata!.resourceVersion!;
    assert.equal((await widgets.get(ctx, 'ns1', 'g', {})).metadata?.uid, created.metadata?.uid);
    assert.equal((await widgets.get(ctx, 'ns1', 'g', { resourceVersion: rv })).metadata?.resourceVersion, rv);
    // `0` answers from the watch cache, which already holds the object (the read above waited for it).
    const any = await widgets.get(ctx, 'ns1', 'g', { resourceVersion: '0' });
    assert.equal(any.metadata?.name, 'g');
    assert.equal(any.metadata?.uid, created.metadata?.uid);
    assert.equal(any.metadata?.resourceVersion, rv);
    await rejects(widgets.get(ctx, 'ns1', 'g', { resourceVersion: '999999' }), 504, 'Timeout', /^Timeout: Too large resource version: 999999, current: \d+$/);
    await rejects(widgets.get(ctx, 'ns1', 'g', { resourceVersion: 'abc' }), 422, 'Invalid');
    await rejects(widgets.get(ctx, 'other', 'g', {}), 404);
    await rejects(widgets.get(ctx, 'ns1', 'g/x', {}), 404);
    await rejects(widgets.get(ctx, 'n/s', 'g', {}), 404);
  });

  test('getAnswer: one shared answer per stored revision, a new one once the object changes, in the served version', async () => {
    const created = await widgets.create(ctx, 'ns1', widget('ga'), noDry);
    const first = await widgets.getAnswer(ctx, 'ns1', 'ga', {});
    const again = await widgets.getAnswer(ctx, 'ns1', 'ga', {});
    assert.ok(first.shared && again.shared, 'answered from the watch cache');
    assert.equal(first.shared.source, again.shared.source, 'the same stored revision is the same source');
    assert.deepEqual(first.build(), await widgets.get(ctx, 'ns1', 'ga', {}));
    assert.equal(first.build().metadata?.resourceVersion, created.metadata?.resourceVersion);
    // A memo keyed by the source answers the second GET without building the object.
    let builds = 0;
    const encode = (a: typeof first): Uint8Array =>
      a.shared!.encodings.get(a.shared!.source, 'test', () => {
        builds++;
        return new TextEncoder().encode(JSON.stringify(a.build()));
      });
    assert.deepEqual(encode(first), encode(again));
    assert.equal(builds, 1);
    const updated = await widgets.update(ctx, 'ns1', 'ga', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { changed: 'yes' } } }), noDry);
    const after = await widgets.getAnswer(ctx, 'ns1', 'ga', {});
    assert.notEqual(after.shared?.source, first.shared.source);
    const bytes = JSON.parse(new TextDecoder().decode(encode(after))) as KubeObject;
    assert.equal(builds, 2);
    assert.deepEqual(bytes.metadata?.labels, { changed: 'yes' });
    assert.equal(bytes.metadata?.resourceVersion, updated.object.metadata?.resourceVersion);
    // Each served version answers in its own version.
    assert.equal((await widgetsV2.getAnswer(ctx, 'ns1', 'ga', {})).build().apiVersion, `${TEST_GROUP}/v2`);
    await rejects(widgets.getAnswer(ctx, 'ns1', 'missing', {}), 404);
  });

  test('update: optimistic concurrency, unconditional updates, generation, kept fields', async () => {
    const created = await widgets.create(ctx, 'ns1', widget('u'), noDry);
    const rv = created.metadata!.resourceVersion!;
    const labelled = await widgets.update(ctx, 'ns1', 'u', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { a: 'b' } } }), noDry);
    assert.equal(labelled.created, false);
    assert.equal(labelled.object.metadata?.generation, 1, 'metadata changes keep the generation');
    assert.notEqual(labelled.object.metadata?.resourceVersion, rv);

    await rejects(
      widgets.update(ctx, 'ns1', 'u', () => ({ ...widget('u'), metadata: { name: 'u', resourceVersion: rv } }), noDry),
      409,
      'Conflict',
      `Operation cannot be fulfilled on widgets.${TEST_GROUP} "u": the object has been modified; please apply your changes to the latest version and try again`,
    );

    const bumped = await widgets.update(ctx, 'ns1', 'u', () => ({ ...widget('u', { size: 5 }), metadata: { name: 'u', creationTimestamp: '2000-01-01T00:00:00Z' } }), noDry);
    assert.equal(bumped.object.metadata?.generation, 2);
    assert.equal(bumped.object.metadata?.uid, created.metadata?.uid);
    assert.equal(bumped.object.metadata?.creationTimestamp, created.metadata?.creationTimestamp);
    assert.equal(bumped.object.metadata?.namespace, 'ns1');

    await rejects(
      widgets.update(ctx, 'ns1', 'u', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, uid: 'other-uid' } }), noDry),
      409,
      'Conflict',
      `Operation cannot be fulfilled on widgets.${TEST_GROUP} "u": Precondition failed: UID in precondition: other-uid, UID in object meta: ${created.metadata?.uid}`,
    );
    await rejects(
      widgets.update(ctx, 'ns1', 'u', () => widget('v'), noDry),
      400,
      'BadRequest',
      'the name of the object (v) does not match the name on the URL (u)',
    );
    await rejects(widgets.update(ctx, 'ns1', 'missing', () => widget('missing'), noDry), 404, 'NotFound');

    // A no-op update writes nothing.
    const same = await widgets.update(ctx, 'ns1', 'u', (cur) => cur!, noDry);
    assert.equal(same.object.metadata?.resourceVersion, bumped.object.metadata?.resourceVersion);

    // Status: the main resource ignores it, /status changes only it.
    const ignored = await widgets.update(ctx, 'ns1', 'u', (cur) => ({ ...cur!, status: { replicas: 3 } }), noDry);
    assert.equal(ignored.object.status, undefined);
    const status = await sub('status').update!(ctx, 'ns1', 'u', (cur) => ({ ...cur!, spec: { size: 99 }, status: { replicas: 3 } }), noDry);
    assert.deepEqual(status.object.status, { replicas: 3 });
    assert.deepEqual(status.object.spec, { size: 5 });
    assert.equal(status.object.metadata?.generation, 2);

    // Dry run: the would-be object, nothing stored.
    const dry = await widgets.update(ctx, 'ns1', 'u', (cur) => ({ ...cur!, spec: { size: 7 } }), { dryRun: true });
    assert.deepEqual(dry.object.spec, { size: 7 });
    assert.deepEqual((await widgets.get(ctx, 'ns1', 'u', {})).spec, { size: 5 });
  });

  test('update: unconditional writes retry on conflicts; kinds may forbid them or create on update', async () => {
    await widgets.create(ctx, 'ns1', widget('race', { count: 0 }), noDry);
    await Promise.all(
      Array.from({ length: 10 }, () =>
        widgets.update(ctx, 'ns1', 'race', (cur) => {
          const spec = cur!.spec as { count: number };
          const { resourceVersion: _rv, ...metadata } = cur!.metadata!;
          return { ...cur!, metadata, spec: { ...spec, count: spec.count + 1 } };
        }, noDry),
      ),
    );
    assert.equal(((await widgets.get(ctx, 'ns1', 'race', {})).spec as { count: number }).count, 10);

    const created = await gizmos.update(ctx, '', 'g2', () => ({ metadata: { name: 'g2' }, spec: {} }), noDry);
    assert.equal(created.created, true);
    assert.equal(created.object.metadata?.generation, 1);
    await rejects(
      gizmos.update(ctx, '', 'g2', () => ({ metadata: { name: 'g2' }, spec: { size: 3 } }), noDry),
      422,
      'Invalid',
      'Gizmo.widgets.testing "g2" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
    );
  });

  test('update: a write built on the current object (a patch) retries when another write lands first; a client\'s own version still conflicts', async () => {
    await widgets.create(ctx, 'ns1', widget('patched', { count: 0 }), noDry);
    // Each keeps the resource version of the object it was handed, as a patch does.
    await Promise.all(
      Array.from({ length: 10 }, () =>
        widgets.update(ctx, 'ns1', 'patched', (cur) => ({ ...cur!, spec: { count: (cur!.spec as { count: number }).count + 1 } }), noDry),
      ),
    );
    assert.equal(((await widgets.get(ctx, 'ns1', 'patched', {})).spec as { count: number }).count, 10);
    // A version the client sent is a precondition: a write in between is a conflict.
    const seen = await widgets.get(ctx, 'ns1', 'patched', {});
    await rejects(
      widgets.update(
        ctx,
        'ns1',
        'patched',
        async () => {
          await widgets.update(ctx, 'ns1', 'patched', (cur) => ({ ...cur!, spec: { count: 0 } }), noDry);
          return { ...seen, spec: { count: 99 } };
        },
        noDry,
      ),
      409,
      'Conflict',
    );
    assert.equal(((await widgets.get(ctx, 'ns1', 'patched', {})).spec as { count: number }).count, 0);
  });

  test('update: a resource version of 0 sets no precondition, as an absent one', async () => {
    await widgets.create(ctx, 'ns1', widget('rv0', { size: 1 }), noDry);
    // kubectl replace of a manifest that carries resourceVersion "0".
    for (const [i, resourceVersion] of ['0', '00'].entries()) {
      const replaced = await widgets.update(ctx, 'ns1', 'rv0', () => ({ ...widget('rv0', { size: 2 + i }), metadata: { name: 'rv0', resourceVersion } }), noDry);
      assert.deepEqual(replaced.object.spec, { size: 2 + i });
      assert.notEqual(replaced.object.metadata?.resourceVersion, resourceVersion);
    }
    // Kinds that need a precondition refuse 0 as they refuse none.
    await gizmos.update(ctx, '', 'g0', () => ({ metadata: { name: 'g0' }, spec: {} }), noDry);
    await rejects(
      gizmos.update(ctx, '', 'g0', () => ({ metadata: { name: 'g0', resourceVersion: '0' }, spec: { size: 3 } }), noDry),
      422,
      'Invalid',
      'Gizmo.widgets.testing "g0" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
    );
    // Create drops a resource version of 0 instead of refusing it.
    const created = await widgets.create(ctx, 'ns1', { ...widget('rv0c'), metadata: { name: 'rv0c', resourceVersion: '0' } }, noDry);
    assert.notEqual(created.metadata?.resourceVersion, '0');
  });

  test('scale subresource reads and writes the replicas through the strategy', async () => {
    await widgets.create(ctx, 'ns1', widget('sc', { replicas: 2 }), noDry);
    const scale = await sub('scale').get!(ctx, 'ns1', 'sc', {});
    assert.equal(scale.apiVersion, 'autoscaling/v1');
    assert.equal(scale.kind, 'Scale');
    assert.deepEqual(scale.spec, { replicas: 2 });
    assert.deepEqual(scale.status, { replicas: 0, selector: 'app=sc' });
    const updated = await sub('scale').update!(ctx, 'ns1', 'sc', (cur) => ({ ...cur!, spec: { replicas: 4 } }), noDry);
    assert.equal(updated.object.kind, 'Scale');
    assert.deepEqual(updated.object.spec, { replicas: 4 });
    assert.equal(((await widgets.get(ctx, 'ns1', 'sc', {})).spec as { replicas: number }).replicas, 4);
    await rejects(sub('scale').update!(ctx, 'ns1', 'sc', (cur) => ({ ...cur!, spec: { replicas: -1 } }), noDry), 422, 'Invalid', 'Scale.autoscaling "sc" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
    await rejects(sub('scale').update!(ctx, 'ns1', 'sc', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, resourceVersion: '1' }, spec: { replicas: 1 } }), noDry), 409, 'Conflict');
  });

  test('a subresource declared as served by a handler is served once the handler is installed', async () => {
    const def = widgetDefinition();
    def.subresources = [...def.subresources, { name: 'token', kind: 'TokenRequest', verbs: ['create'], serving: { by: 'handler', handler: 'ServiceAccountToken' } }];
    const own = buildResourceTable([def], storage);
    try {
      assert.deepEqual(own.subresources(def, 'widgets').map((s) => s.definition.name), ['status', 'scale'], 'not served before the handler is');
      const installed = serveSubresourceHandler(own, 'ServiceAccountToken', (store, definition) => ({
        resource: store.definition,
        definition,
        create: async (_ctx, _ns, name, obj) => ({ ...obj, status: { token: `for-${name}` } }),
      }));
      assert.equal(installed.length, 1);
      assert.deepEqual(own.subresources(def, 'widgets').map((s) => s.definition.name), ['status', 'scale', 'token']);
      const token = own.lookupSubresource(def, 'widgets', 'token')!;
      const out = await token.create!(ctx, 'ns1', 'a', { kind: 'TokenRequest' }, noDry);
      assert.deepEqual(out.status, { token: 'for-a' });
      assert.equal(token.get, undefined);
      assert.equal(serveSubresourceHandler(own, 'PodBinding', () => assert.fail('no kind declares it')).length, 0);
    } finally {
      await own.stop();
    }
  });

  test('delete: finalizers, preconditions, dry run and the watch events', async () => {
    const created = await widgets.create(ctx, 'del', { ...widget('f'), metadata: { name: 'f', finalizers: ['example.com/hold'] } }, noDry);
    const rv = created.metadata!.resourceVersion!;
    await rejects(
      widgets.delete(ctx, 'del', 'f', { dryRun: false, preconditions: { uid: 'nope' } }),
      409,
      'Conflict',
      `Operation cannot be fulfilled on widgets.${TEST_GROUP} "f": Precondition failed: UID in precondition: nope, UID in object meta: ${created.metadata?.uid}`,
    );
    await rejects(
      widgets.delete(ctx, 'del', 'f', { dryRun: false, preconditions: { resourceVersion: '1' } }),
      409,
      'Conflict',
      `Operation cannot be fulfilled on widgets.${TEST_GROUP} "f": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${rv}`,
    );
    await rejects(
      widgets.delete(ctx, 'del', 'f', { dryRun: false, propagationPolicy: 'Sideways' as 'Orphan' }),
      422,
      'Invalid',
      'DeleteOptions.meta.orch.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
    const dry = await widgets.delete(ctx, 'del', 'f', { dryRun: true });
    assert.equal(dry.deleted, false);
    assert.ok(dry.object.metadata?.deletionTimestamp);
    assert.equal((await widgets.get(ctx, 'del', 'f', {})).metadata?.deletionTimestamp, undefined);

    const events = await collect(widgets, 'del', { resourceVersion: rv }, 2, async () => {
      const first = await widgets.delete(ctx, 'del', 'f', { dryRun: false, propagationPolicy: 'Foreground' });
      assert.equal(first.deleted, false);
      assert.equal(first.object.metadata?.deletionGracePeriodSeconds, 0);
      assert.equal(first.object.metadata?.generation, 2);
      const again = await widgets.delete(ctx, 'del', 'f', { dryRun: false });
      assert.equal(again.deleted, false);
      assert.equal(again.object.metadata?.resourceVersion, first.object.metadata?.resourceVersion);
      await rejects(
        widgets.update(ctx, 'del', 'f', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, finalizers: ['example.com/hold', 'example.com/new'] } }), noDry),
        422,
        'Invalid',
        /metadata\.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers \[\]string\{"example\.com\/new"\}/,
      );
      const released = await widgets.update(ctx, 'del', 'f', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, finalizers: [] } }), noDry);
      assert.equal(released.created, false);
    });
    assert.deepEqual(summary(events), ['MODIFIED f', 'DELETED f']);
    await rejects(widgets.get(ctx, 'del', 'f', {}), 404);

    await widgets.create(ctx, 'del', widget('plain'), noDry);
    const gone = await widgets.delete(ctx, 'del', 'plain', { dryRun: false });
    assert.equal(gone.deleted, true);
    assert.equal(gone.object.metadata?.name, 'plain');
    await rejects(widgets.delete(ctx, 'del', 'plain', { dryRun: false }), 404);
  });

  test('deleteCollection deletes the selected objects and respects finalizers', async () => {
    await widgets.create(ctx, 'dc', widget('x1', {}, { app: 'x' }), noDry);
    await widgets.create(ctx, 'dc', widget('x2', {}, { app: 'x' }), noDry);
    await widgets.create(ctx, 'dc', { ...widget('x3', {}, { app: 'x' }), metadata: { name: 'x3', labels: { app: 'x' }, finalizers: ['example.com/hold'] } }, noDry);
    await widgets.create(ctx, 'dc', widget('y1', {}, { app: 'y' }), noDry);
    const result = await widgets.deleteCollection(ctx, 'dc', noDry, { labelSelector: 'app=x' });
    assert.equal(result.kind, 'WidgetList');
    assert.deepEqual(result.items.map((o) => o.metadata?.name), ['x1', 'x2', 'x3']);
    const left = await widgets.list(ctx, 'dc', {});
    assert.deepEqual(left.items.map((o) => o.metadata?.name), ['x3', 'y1']);
    assert.ok(left.items[0].metadata?.deletionTimestamp);
  });

  test('versions sharing storage see the same objects, each in its own version', async () => {
    const v2 = await widgetsV2.create(ctx, 'conv', { apiVersion: `${TEST_GROUP}/v2`, kind: 'Widget', metadata: { name: 'c' }, spec: { dimension: 4 } }, noDry);
    assert.equal(v2.apiVersion, `${TEST_GROUP}/v2`);
    assert.deepEqual(v2.spec, { dimension: 4 });
    const v1 = await widgets.get(ctx, 'conv', 'c', {});
    assert.equal(v1.apiVersion, `${TEST_GROUP}/v1`);
    assert.deepEqual(v1.spec, { size: 4 });
    const list = await widgetsV2.list(ctx, 'conv', {});
    assert.equal(list.apiVersion, `${TEST_GROUP}/v2`);
    assert.deepEqual(list.items[0].spec, { dimension: 4 });
    const events = await collect(widgetsV2, 'conv', { resourceVersion: v2.metadata!.resourceVersion! }, 1, async () => {
      const updated = await widgetsV2.update(ctx, 'conv', 'c', (cur) => ({ ...cur!, spec: { dimension: 6 } }), noDry);
      assert.deepEqual(updated.object.spec, { dimension: 6 });
      assert.equal(updated.object.metadata?.generation, 2);
    });
    assert.equal(events[0].type, 'MODIFIED');
    assert.equal(events[0].object.apiVersion, `${TEST_GROUP}/v2`);
    assert.deepEqual(events[0].object.spec, { dimension: 6 });
  });
});

describe('GenericStore list', () => {
  let storage: MemoryStorage;
  let table: DefaultResourceTable;
  let widgets: GenericStore;
  let gizmos: GenericStore;

  before(async () => {
    storage = new MemoryStorage();
    table = buildResourceTable([widgetDefinition(), gizmoDefinition()], storage, { waitTimeoutMs: 200 });
    widgets = table.lookup({ group: TEST_GROUP, version: 'v1' }, 'widgets') as GenericStore;
    gizmos = table.lookup({ group: TEST_GROUP, version: 'v1' }, 'gizmos') as GenericStore;
    for (let i = 0; i < 10; i++) {
      await widgets.create(ctx, i < 6 ? 'a' : 'b', widget(`w${i}`, { color: i % 2 === 0 ? 'red' : 'blue' }, { parity: i % 2 === 0 ? 'even' : 'odd' }), noDry);
    }
  });

  after(async () => {
    await table.stop();
    await storage.close();
  });

  function names(list: { items: KubeObject[] }): string[] {
    return list.items.map((o) => o.metadata?.name ?? '');
  }

  test('most recent, any and not-older-than lists', async () => {
    const all = await widgets.list(ctx, '', {});
    assert.equal(all.kind, 'WidgetList');
    assert.equal(all.apiVersion, `${TEST_GROUP}/v1`);
    assert.equal(all.items.length, 10);
    assert.equal(all.metadata.resourceVersion, String(await storage.revision()));
    assert.equal(all.metadata.continue, undefined);
    assert.equal(all.metadata.remainingItemCount, undefined);
    assert.deepEqual(names(await widgets.list(ctx, 'b', {})), ['w6', 'w7', 'w8', 'w9']);
    assert.equal((await widgets.list(ctx, 'a', { resourceVersion: '0' })).items.length, 6);
    assert.equal((await widgets.list(ctx, 'a', { resourceVersion: all.metadata.resourceVersion })).items.length, 6);
    assert.equal((await widgets.list(ctx, 'a', { resourceVersion: all.metadata.resourceVersion, resourceVersionMatch: 'NotOlderThan' })).items.length, 6);
    assert.equal((await widgets.list(ctx, 'a', { resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' })).items.length, 6);
    await rejects(widgets.list(ctx, '', { resourceVersion: '999999' }), 504, 'Timeout', /Too large resource version: 999999/);
  });

  test('exact lists read the snapshot at that revision', async () => {
    const before = await widgets.list(ctx, 'a', {});
    await widgets.create(ctx, 'a', widget('late'), noDry);
    const exact = await widgets.list(ctx, 'a', { resourceVersion: before.metadata.resourceVersion, resourceVersionMatch: 'Exact' });
    assert.deepEqual(names(exact), names(before));
    assert.equal(exact.metadata.resourceVersion, before.metadata.resourceVersion);
    const legacyExact = await widgets.list(ctx, 'a', { resourceVersion: before.metadata.resourceVersion, limit: 100 });
    assert.deepEqual(names(legacyExact), names(before));
    const exactPage = await widgets.list(ctx, 'a', { resourceVersion: before.metadata.resourceVersion, resourceVersionMatch: 'Exact', limit: 2 });
    assert.deepEqual(names(exactPage), names(before).slice(0, 2));
    assert.equal(exactPage.metadata.resourceVersion, before.metadata.resourceVersion);
    const rest = await widgets.list(ctx, 'a', { limit: 100, continue: exactPage.metadata.continue });
    assert.deepEqual(names(rest), names(before).slice(2));
    // limit with resourceVersion=0: the whole list from the cache at its current revision (the
    // 1.27 watch cache does not page); with NotOlderThan a version: paged.
    const anyPage = await widgets.list(ctx, 'a', { resourceVersion: '0', limit: 2 });
    assert.ok(anyPage.items.length > 2);
    assert.equal(anyPage.metadata.continue, undefined);
    assert.equal(anyPage.metadata.remainingItemCount, undefined);
    assert.ok(Number(anyPage.metadata.resourceVersion) > Number(before.metadata.resourceVersion));
    const notOlder = await widgets.list(ctx, 'a', { resourceVersion: before.metadata.resourceVersion, resourceVersionMatch: 'NotOlderThan', limit: 2 });
    assert.ok(Number(notOlder.metadata.resourceVersion) > Number(before.metadata.resourceVersion));
    assert.ok(names(notOlder).length === 2 && notOlder.metadata.continue);
    await widgets.delete(ctx, 'a', 'late', noDry);
  });

  test('paging keeps one snapshot under concurrent writes', async () => {
    const first = await widgets.list(ctx, '', { limit: 3 });
    assert.deepEqual(names(first), ['w0', 'w1', 'w2']);
    assert.ok(first.metadata.continue);
    assert.equal(first.metadata.remainingItemCount, 7);
    // Writes after the first page are invisible to later pages.
    await widgets.create(ctx, 'a', widget('w3a'), noDry);
    await widgets.delete(ctx, 'b', 'w9', noDry);
    await widgets.update(ctx, 'a', 'w4', (cur) => ({ ...cur!, spec: { ...(cur!.spec as object), size: 42 } }), noDry);
    const seen: string[] = [...names(first)];
    let cont: string | undefined = first.metadata.continue;
    let sizeOfW4: unknown;
    while (cont) {
      const page = await widgets.list(ctx, '', { limit: 3, continue: cont });
      assert.equal(page.metadata.resourceVersion, first.metadata.resourceVersion);
      seen.push(...names(page));
      for (const o of page.items) if (o.metadata?.name === 'w4') sizeOfW4 = (o.spec as { size: number }).size;
      cont = page.metadata.continue;
    }
    assert.deepEqual(seen, ['w0', 'w1', 'w2', 'w3', 'w4', 'w5', 'w6', 'w7', 'w8', 'w9']);
    assert.equal(sizeOfW4, 2);
    await widgets.create(ctx, 'b', widget('w9', { color: 'blue' }, { parity: 'odd' }), noDry);
    await widgets.delete(ctx, 'a', 'w3a', noDry);
    // The continue token also serves resourceVersion=0, as the token's version.
    const again = await widgets.list(ctx, '', { limit: 3, continue: first.metadata.continue, resourceVersion: '0' });
    assert.deepEqual(names(again), ['w3', 'w4', 'w5']);
  });

  test('selectors filter lists; remainingItemCount is omitted with them', async () => {
    assert.deepEqual(names(await widgets.list(ctx, '', { labelSelector: 'parity=even' })), ['w0', 'w2', 'w4', 'w6', 'w8']);
    assert.deepEqual(names(await widgets.list(ctx, '', { labelSelector: 'parity in (odd),parity!=even', fieldSelector: 'metadata.namespace=b' })), ['w7', 'w9']);
    assert.deepEqual(names(await widgets.list(ctx, '', { fieldSelector: 'spec.color=red,metadata.name!=w0' })), ['w2', 'w4', 'w6', 'w8']);
    const page = await widgets.list(ctx, '', { labelSelector: 'parity=odd', limit: 2 });
    assert.deepEqual(names(page), ['w1', 'w3']);
    assert.equal(page.metadata.remainingItemCount, undefined);
    const rest = await widgets.list(ctx, '', { labelSelector: 'parity=odd', limit: 2, continue: page.metadata.continue });
    assert.deepEqual(names(rest), ['w5', 'w7']);
    await rejects(widgets.list(ctx, '', { labelSelector: 'a in b' }), 400, 'BadRequest', "unable to parse requirement: found 'b' expected: '('");
    await rejects(widgets.list(ctx, '', { fieldSelector: 'spec.size=1' }), 400, 'BadRequest', 'field label not supported: spec.size');
    await rejects(gizmos.list(ctx, '', { fieldSelector: 'spec.size=1' }), 400, 'BadRequest', '"spec.size" is not a known field selector: only "metadata.name", "metadata.namespace"');
  });

  test('invalid combinations of the list options', async () => {
    const msg = (detail: string) => `ListOptions.meta.orch.io "" is invalid: ${detail}`;
    await rejects(widgets.list(ctx, '', { resourceVersionMatch: 'Exact' }), 400, 'BadRequest', msg('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'));
    await rejects(widgets.list(ctx, '', { resourceVersionMatch: 'NotOlderThan' }), 400, 'BadRequest');
    await rejects(widgets.list(ctx, '', { resourceVersion: '0', resourceVersionMatch: 'Exact' }), 400, 'BadRequest', msg('resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    const first = await widgets.list(ctx, '', { limit: 2 });
    await rejects(widgets.list(ctx, '', { limit: 2, continue: first.metadata.continue, resourceVersion: '5' }), 400, 'BadRequest', 'specifying resource version is not allowed when using continue');
    await rejects(widgets.list(ctx, '', { continue: first.metadata.continue, resourceVersion: '5', resourceVersionMatch: 'Exact' }), 400, 'BadRequest', /resourceVersionMatch is forbidden when continue is provided/);
    await rejects(widgets.list(ctx, '', { continue: 'garbage!' }), 400, 'BadRequest', /^invalid continue token: continue key is not valid/);
    await rejects(widgets.list(ctx, '', { sendInitialEvents: true }), 400, 'BadRequest', /sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list/);
  });

  test('compacted revisions: expired continue tokens and exact lists are 410', async () => {
    const first = await widgets.list(ctx, '', { limit: 2 });
    const old = first.metadata.resourceVersion!;
    await widgets.create(ctx, 'a', widget('compact-me'), noDry);
    await widgets.delete(ctx, 'a', 'compact-me', noDry);
    await storage.compact(await storage.revision());
    await rejects(
      widgets.list(ctx, '', { limit: 2, continue: first.metadata.continue }),
      410,
      'Expired',
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
    );
    await rejects(widgets.list(ctx, '', { resourceVersion: old, resourceVersionMatch: 'Exact' }), 410, 'Expired', 'The resourceVersion for the provided list is too old.');
  });

  test('the 410 for an expired continue token carries a token that finishes the list at the latest revision', async () => {
    const all = (await widgets.list(ctx, '', {})).items.map((w) => w.metadata?.name);
    const first = await widgets.list(ctx, '', { limit: 1 });
    await widgets.create(ctx, 'a', widget('compact-again'), noDry);
    await widgets.delete(ctx, 'a', 'compact-again', noDry);
    await storage.compact(await storage.revision());
    let token = '';
    try {
      await widgets.list(ctx, '', { limit: 1, continue: first.metadata.continue });
      assert.fail('expected 410');
    } catch (e) {
      assert.ok(isApiError(e));
      assert.equal(e.code, 410);
      token = (e.status.metadata as { continue?: string }).continue ?? '';
    }
    assert.notEqual(token, '');
    const rest = await widgets.list(ctx, '', { continue: token });
    assert.equal(rest.metadata.resourceVersion, String(await storage.revision()));
    assert.deepEqual([first.items[0]?.metadata?.name, ...rest.items.map((w) => w.metadata?.name)], all);
  });
});

describe('GenericStore watch', () => {
  let storage: MemoryStorage;
  let table: DefaultResourceTable;
  let widgets: GenericStore;

  before(() => {
    storage = new MemoryStorage();
    table = buildResourceTable([widgetDefinition()], storage, { waitTimeoutMs: 200, cacherOptions: { maxEvents: 20, bookmarkIntervalMs: 50, freshTimeoutMs: 200 } });
    widgets = table.lookup({ group: TEST_GROUP, version: 'v1' }, 'widgets') as GenericStore;
  });

  after(async () => {
    await table.stop();
    await storage.close();
  });

  test('unset resource version: synthetic ADDED, then changes', async () => {
    await widgets.create(ctx, 'w', widget('one'), noDry);
    await widgets.create(ctx, 'other', widget('elsewhere'), noDry);
    const events = await collect(widgets, 'w', {}, 4, async () => {
      await widgets.create(ctx, 'w', widget('two'), noDry);
      await widgets.update(ctx, 'w', 'one', (cur) => ({ ...cur!, spec: { size: 9 } }), noDry);
      await widgets.delete(ctx, 'w', 'two', noDry);
    });
    assert.deepEqual(summary(events), ['ADDED one', 'ADDED two', 'MODIFIED one', 'DELETED two']);
    assert.equal(events[0].object.apiVersion, `${TEST_GROUP}/v1`);
    assert.equal(events[3].object.metadata?.resourceVersion, String(await storage.revision()));
    const allNamespaces = await collect(widgets, '', { resourceVersion: '0' }, 2);
    assert.deepEqual(summary(allNamespaces).sort(), ['ADDED elsewhere', 'ADDED one']);
  });

  test('from a resource version: only later changes; one object by field selector', async () => {
    const rv = (await widgets.list(ctx, 'w', {})).metadata.resourceVersion!;
    const events = await collect(widgets, 'w', { resourceVersion: rv, fieldSelector: 'metadata.name=three' }, 2, async () => {
      await widgets.create(ctx, 'w', widget('noise'), noDry);
      await widgets.create(ctx, 'w', widget('three'), noDry);
      await widgets.update(ctx, 'w', 'three', (cur) => ({ ...cur!, spec: { size: 3 } }), noDry);
    });
    assert.deepEqual(summary(events), ['ADDED three', 'MODIFIED three']);
  });

  test('label selector transitions: leaving is DELETED with the last matching state, entering is ADDED', async () => {
    await widgets.create(ctx, 't', widget('sel', {}, { role: 'in' }), noDry);
    const rv = (await widgets.get(ctx, 't', 'sel', {})).metadata!.resourceVersion!;
    const events = await collect(widgets, 't', { resourceVersion: rv, labelSelector: 'role=in' }, 3, async () => {
      await widgets.update(ctx, 't', 'sel', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { role: 'out' } } }), noDry);
      await widgets.update(ctx, 't', 'sel', (cur) => ({ ...cur!, spec: { size: 7 } }), noDry);
      await widgets.update(ctx, 't', 'sel', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { role: 'in' } } }), noDry);
      await widgets.delete(ctx, 't', 'sel', noDry);
    });
    assert.deepEqual(summary(events), ['DELETED sel', 'ADDED sel', 'DELETED sel']);
    assert.deepEqual(events[0].object.metadata?.labels, { role: 'in' });
    assert.deepEqual(events[1].object.spec, { size: 7 });
  });

  test('bookmarks, timeout and a final bookmark', async () => {
    const rv = (await widgets.list(ctx, 'w', {})).metadata.resourceVersion!;
    const stream = await widgets.watch(ctx, 'w', { resourceVersion: rv, allowWatchBookmarks: true, timeoutSeconds: 0.3 });
    const events: WatchEvent[] = [];
    for await (const ev of stream) events.push(ev);
    assert.ok(events.length >= 1);
    for (const ev of events) {
      assert.equal(ev.type, 'BOOKMARK');
      assert.deepEqual(Object.keys(ev.object).sort(), ['apiVersion', 'kind', 'metadata']);
      assert.equal(ev.object.kind, 'Widget');
      assert.ok(Number(ev.object.metadata?.resourceVersion) >= Number(rv));
    }
  });

  test('abort ends the stream; a start revision out of the window is an ERROR event with 410', async () => {
    const ac = new AbortController();
    const initial = (await widgets.list(ctx, 'w', {})).items.length;
    const stream = await widgets.watch(requestContext(ac.signal), 'w', {});
    let count = 0;
    // Aborted once the initial ADDED events are in: the stream must end there.
    for await (const _ of stream) if (++count === initial) ac.abort();
    assert.equal(count, initial, 'only the initial ADDED events');

    for (let i = 0; i < 25; i++) await widgets.update(ctx, 'w', 'one', (cur) => ({ ...cur!, spec: { size: i + 10 } }), noDry);
    const events = await collect(widgets, 'w', { resourceVersion: '1' }, 5);
    assert.equal(events.length, 1);
    assert.equal(events[0].type, 'ERROR');
    const status = events[0].object as unknown as { code: number; reason: string; message: string; kind: string };
    assert.equal(status.kind, 'Status');
    assert.equal(status.code, 410);
    assert.equal(status.reason, 'Expired');
    assert.match(status.message, /^too old resource version: 1 \(\d+\)$/);
  });

  test('a start revision the store has not reached ends in a 504 ERROR event', async () => {
    const events = await collect(widgets, 'w', { resourceVersion: '999999' }, 1);
    assert.equal(events[0]?.type, 'ERROR');
    const status = events[0].object as unknown as { code: number; reason: string; message: string };
    assert.equal(status.code, 504);
    assert.match(status.message, /^Timeout: Too large resource version: 999999, current: \d+$/);
  });

  test('invalid watch options are rejected before the stream starts', async () => {
    await rejects(widgets.watch(ctx, 'w', { resourceVersionMatch: 'NotOlderThan', resourceVersion: '1' }), 400, 'BadRequest', /resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided/);
    await rejects(widgets.watch(ctx, 'w', { labelSelector: '!' }), 400, 'BadRequest');
  });
});

test('the strategy contract in testing.ts is exercised as written', () => {
  // Guards the fixture itself: validate must catch a negative size.
  assert.equal(widgetStrategy().validate({ spec: { size: -1 } }).length, 1);
});
