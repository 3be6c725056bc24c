import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildAdmissionChain, admissionFlagDefinitions } from '../admission/index.js';
import { parseFlags } from '../apimachinery/flags.js';
import { LoopbackClient } from '../server/loopback.js';
import { startControllers } from '../controllers/index.js';
import { memoryTable, probeStore } from '../testing/memory-table.js';
import { eventually } from '../testing/wait.js';
import { SharedInformerFactory } from './informer-factory.js';

const NS = { group: '', version: 'v1', resource: 'namespaces' };
const CM = { group: '', version: 'v1', resource: 'configmaps' };
const admin = { username: 'admin', groups: ['system:masters'] };

test('one informer per resource and scope, started with the factory or on request once it runs', async () => {
  const { table, close } = memoryTable();
  const configmaps = probeStore(table, CM);
  const client = new LoopbackClient(table, admin);
  await client.create(CM, 'a', { metadata: { name: 'x' } });
  const factory = new SharedInformerFactory(client);
  const all = factory.informerFor(CM);
  assert.equal(factory.informerFor(CM), all);
  const inA = factory.informerFor(CM, { namespace: 'a' });
  assert.notEqual(inA, all);
  assert.equal(configmaps.calls.list, undefined, 'nothing runs before start');
  factory.start();
  const late = factory.informerFor(NS);
  await factory.waitForSync();
  assert.deepEqual(all.listKeys(), ['a/x']);
  assert.deepEqual(inA.listKeys(), ['a/x']);
  assert.ok(late.hasSynced(), 'an informer asked for after start runs too');
  await factory.stop();
  assert.equal(configmaps.watcherCount(), 0);
  await close();
});

test('admission and the controllers can share the namespace informer: namespaces are watched once', async () => {
  const { table, close } = memoryTable();
  const namespaces = probeStore(table, NS);
  const client = new LoopbackClient(table, admin);
  const informers = new SharedInformerFactory(client);
  // The webhooks' configuration kinds are not in this small table: leave them out.
  const flags = parseFlags(['--disable-admission-plugins=MutatingAdmissionWebhook,ValidatingAdmissionWebhook'], admissionFlagDefinitions);
  const chain = buildAdmissionChain(flags, { client, informers });
  const controllers = startControllers({ client: new LoopbackClient(table, admin, { admission: chain }), table, informers });
  try {
    await informers.waitForSync();
    await eventually(() => namespaces.watcherCount() > 0, 'the namespace watch');
    assert.equal(namespaces.watcherCount(), 1);
    assert.equal(namespaces.calls.list, 1);
  } finally {
    await controllers.stop();
    await chain.stop();
    assert.equal(namespaces.watcherCount(), 1, 'the shared informer outlives its consumers');
    await informers.stop();
    assert.equal(namespaces.watcherCount(), 0);
    await close();
  }
});

test('a metadata informer keeps type and metadata only, and a whole informer of the same selection serves its readers', async () => {
  const { table, close } = memoryTable();
  const configmaps = probeStore(table, CM);
  const client = new LoopbackClient(table, admin);
  await client.create(CM, 'a', { metadata: { name: 'x', labels: { k: 'v' } }, data: { secret: 'bulk' } });
  const factory = new SharedInformerFactory(client);
  const meta = factory.informerFor(CM, { metadataOnly: true });
  const nsWhole = factory.informerFor(NS);
  assert.equal(factory.informerFor(NS, { metadataOnly: true }), nsWhole, 'the whole informer already asked for is shared');
  factory.start();
  try {
    await factory.waitForSync();
    const held = meta.get('a', 'x');
    assert.deepEqual(Object.keys(held ?? {}).sort(), ['apiVersion', 'kind', 'metadata']);
    assert.deepEqual(held?.metadata?.labels, { k: 'v' });
    assert.equal(held?.metadata?.managedFields, undefined);
    // Later events are trimmed as the list was.
    await client.update(CM, 'a', { metadata: { name: 'x', labels: { k: 'w' } }, data: { secret: 'more' } });
    await eventually(() => meta.get('a', 'x')?.metadata?.labels?.k === 'w', 'the update');
    assert.equal((meta.get('a', 'x') as { data?: unknown }).data, undefined);
    assert.equal(configmaps.watcherCount(), 1);
  } finally {
    await factory.stop();
    await close();
  }
});
