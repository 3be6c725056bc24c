import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { isApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import { MemoryStorage } from '../storage/index.js';
import type { GenericStore } from './store.js';
import { buildResourceTable, type DefaultResourceTable } from './table.js';
import { TEST_GROUP, requestContext, widgetDefinition } from '../testing/registry.js';

let storage: MemoryStorage;
let table: DefaultResourceTable;
let widgets: GenericStore;
const ctx = requestContext();

before(() => {
  storage = new MemoryStorage();
  table = buildResourceTable([widgetDefinition()], storage, { waitTimeoutMs: 200 });
  widgets = table.lookup({ group: TEST_GROUP, version: 'v1' }, 'widgets') as GenericStore;
});

after(async () => {
  await table.stop();
  await storage.close();
});

function widget(name: string, finalizers?: string[]): KubeObject {
  return { apiVersion: `${TEST_GROUP}/v1`, kind: 'Widget', metadata: { name, ...(finalizers ? { finalizers } : {}) }, spec: { size: 1 } };
}

async function conflictMessage(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    assert.ok(isApiError(e));
    assert.equal(e.code, 409);
    assert.equal(e.reason, 'AlreadyExists');
    return e.message;
  }
  assert.fail('expected 409');
}

test('creating a name still held by an object being deleted says so', async () => {
  await widgets.create(ctx, 'ns', widget('held', ['example.com/hold']), { dryRun: false });
  assert.equal(await conflictMessage(widgets.create(ctx, 'ns', widget('held'), { dryRun: false })), `widgets.${TEST_GROUP} "held" already exists`);
  await widgets.delete(ctx, 'ns', 'held', { dryRun: false });
  const expected = `object is being deleted: widgets.${TEST_GROUP} "held" already exists`;
  assert.equal(await conflictMessage(widgets.create(ctx, 'ns', widget('held'), { dryRun: false })), expected);
  assert.equal(await conflictMessage(widgets.create(ctx, 'ns', widget('held'), { dryRun: true })), expected);
});
