// The stored object size limit: etcd refuses requests above 1.5 MiB by default, and the
// store refuses the same objects before any storage transaction, dry run or not.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { isApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import { MemoryStorage } from '../storage/index.js';
import { DEFAULT_MAX_OBJECT_SIZE_BYTES, type GenericStore } from './store.js';
import { buildResourceTable, type DefaultResourceTable } from './table.js';
import { encodeForStorage, jsonCodec } from '../codec/storage.js';
import { TEST_GROUP, requestContext, widgetDefinition } from '../testing/registry.js';

let storage: MemoryStorage;
let table: DefaultResourceTable;
let widgets: GenericStore;
const ctx = requestContext();
const LIMIT = 64 * 1024;

before(() => {
  storage = new MemoryStorage();
  table = buildResourceTable([widgetDefinition()], storage, { waitTimeoutMs: 200, maxObjectSizeBytes: LIMIT });
  widgets = table.lookup({ group: TEST_GROUP, version: 'v1' }, 'widgets') as GenericStore;
});

after(async () => {
  await table.stop();
  await storage.close();
});

function widget(name: string, pad: number): KubeObject {
  return { apiVersion: `${TEST_GROUP}/v1`, kind: 'Widget', metadata: { name, annotations: { pad: 'x'.repeat(pad) } }, spec: { size: 1 } };
}

async function refusedAsTooLarge(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (e) {
    assert.ok(isApiError(e), String(e));
    assert.equal(e.code, 500);
    assert.equal(e.status.reason, undefined);
    assert.equal(e.message, 'etcdserver: request is too large');
    return;
  }
  assert.fail('expected the write to be refused');
}

/** The padding that makes the stored bytes of widget(name) exactly `size`. */
async function padFor(name: string, size: number): Promise<number> {
  const created = await widgets.create(ctx, 'ns', widget(`${name}-probe`, 0), { dryRun: true });
  return size - encodeForStorage(jsonCodec, created).byteLength + (name.length - `${name}-probe`.length);
}

test('the default is etcd’s 1.5 MiB request limit', () => {
  assert.equal(DEFAULT_MAX_OBJECT_SIZE_BYTES, 1572864);
});

test('an object just under the limit is stored; one just over is refused, dry run too, and nothing is stored', async () => {
  const revision = await storage.revision();
  const pad = await padFor('big', LIMIT);
  await refusedAsTooLarge(widgets.create(ctx, 'ns', widget('big', pad + 64), { dryRun: true }));
  await refusedAsTooLarge(widgets.create(ctx, 'ns', widget('big', pad + 64), { dryRun: false }));
  assert.equal(await storage.revision(), revision);
  assert.equal((await storage.list('/')).items.length, 0);
  const stored = await widgets.create(ctx, 'ns', widget('big', pad - 64), { dryRun: false });
  assert.equal(stored.metadata?.name, 'big');
});

test('an update growing an object over the limit is refused and the stored object stays', async () => {
  await widgets.create(ctx, 'ns', widget('grows', 10), { dryRun: false });
  const revision = await storage.revision();
  const grow = (cur: KubeObject | undefined): KubeObject => ({ ...(cur as KubeObject), metadata: { ...cur?.metadata, annotations: { pad: 'x'.repeat(LIMIT) } } });
  await refusedAsTooLarge(widgets.update(ctx, 'ns', 'grows', grow, { dryRun: true }));
  await refusedAsTooLarge(widgets.update(ctx, 'ns', 'grows', grow, { dryRun: false }));
  assert.equal(await storage.revision(), revision);
  const kept = await widgets.get(ctx, 'ns', 'grows', {});
  assert.equal((kept.metadata?.annotations as Record<string, string>).pad, 'x'.repeat(10));
});

// Kubernetes validates first and meets etcd's limit only when writing, so it would answer
// these with 422. The store refuses an oversized request object before defaulting,
// validation and field tracking instead: that work grows with the object, and it could only
// end in the same refusal.
test('an oversized object is refused for its size before validation, on create and update', async () => {
  const bad = (name: string): KubeObject => {
    const obj = widget(name, LIMIT);
    (obj.metadata as NonNullable<KubeObject['metadata']>).labels = { 'not a label!': 'x' };
    return obj;
  };
  let admitted = 0;
  const validate = async (): Promise<void> => {
    admitted++;
  };
  await refusedAsTooLarge(widgets.create(ctx, 'ns', bad('early-create'), { dryRun: false, validate }));
  await refusedAsTooLarge(widgets.create(ctx, 'ns', bad('early-dry'), { dryRun: true, validate }));

  await widgets.create(ctx, 'ns', widget('early-update', 0), { dryRun: false });
  await refusedAsTooLarge(widgets.update(ctx, 'ns', 'early-update', async () => bad('early-update'), { dryRun: false, validate }));
  assert.equal(admitted, 0);
  const stored = await widgets.get(ctx, 'ns', 'early-update', {});
  assert.deepEqual(stored.metadata?.labels, undefined);
});
