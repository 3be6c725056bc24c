// The registry over the built-in definitions: the stores the table makes for them, and the
// behaviours that depend on several definitions together (shared storage, conversion, scale).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinResourceDefinitions } from '../apis/definitions.js';
import { group } from '../naming/index.js';
import { MemoryStorage } from '../storage/index.js';
import { NamespaceStore } from './namespaces.js';
import type { RESTStore } from '../rest/index.js';
import { buildResourceTable, type DefaultResourceTable } from './table.js';
import { requestContext } from '../testing/registry.js';

const ctx = requestContext();
const noDry = { dryRun: false };
let storage: MemoryStorage;
let table: DefaultResourceTable;

function store(g: string, version: string, resource: string): RESTStore {
  const s = table.lookup({ group: g, version }, resource);
  assert.ok(s, `${g}/${version}/${resource} is served`);
  return s;
}

before(() => {
  storage = new MemoryStorage();
  table = buildResourceTable(builtinResourceDefinitions(), storage);
});

after(async () => {
  await table.stop();
  await storage.close();
});

test('every stored definition gets a store; namespaces get theirs', () => {
  const defs = builtinResourceDefinitions();
  assert.equal(table.all().length, defs.filter((d) => d.storage && d.strategy).length);
  assert.ok(store('', 'v1', 'namespaces') instanceof NamespaceStore);
});

test('core and events Event share one key space, each answered in its version', async () => {
  await store('', 'v1', 'namespaces').create!(ctx, '', { metadata: { name: 'ev' } }, noDry);
  const core = await store('', 'v1', 'events').create!(
    ctx,
    'ev',
    { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'ev' }, reason: 'Started', message: 'hello', type: 'Normal' },
    noDry,
  );
  const other = await store(group('events'), 'v1', 'events').get!(ctx, 'ev', 'e1', {});
  assert.equal(other.apiVersion, `${group('events')}/v1`);
  assert.equal(other.metadata?.uid, core.metadata?.uid);
  assert.equal(other.metadata?.resourceVersion, core.metadata?.resourceVersion);
  assert.equal(other.note, 'hello');
});

test('deployments scale through the Scale subresource', async () => {
  const deployments = store('apps', 'v1', 'deployments');
  await deployments.create!(
    ctx,
    'ev',
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    },
    noDry,
  );
  const scaleStore = table.lookupSubresource(deployments.definition, 'deployments', 'scale')!;
  const scale = await scaleStore.get!(ctx, 'ev', 'web', {});
  assert.deepEqual(scale.spec, { replicas: 2 });
  const updated = await scaleStore.update!(ctx, 'ev', 'web', (cur) => ({ ...cur!, spec: { replicas: 4 } }), noDry);
  assert.deepEqual(updated.object.spec, { replicas: 4 });
  const after = await deployments.get!(ctx, 'ev', 'web', {});
  assert.equal((after.spec as { replicas: number }).replicas, 4);
  assert.equal(after.metadata?.generation, 2);
});
