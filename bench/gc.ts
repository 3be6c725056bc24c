// The garbage collector under one owner with many dependents: creates them (timed), deletes
// the owner with the Background policy, and times until every dependent is gone, in the
// same run, over the real registry on memory storage and the in-process client.
//   node dist/bench/gc.js [<dependents>]   (10,000 by default)
import { realClock } from '../src/apimachinery/clock.js';
import { GarbageCollector } from '../src/controllers/garbagecollector/controller.js';
import { LoopbackClient } from '../src/server/loopback.js';
import { coreDefinitions, memoryTable } from '../src/testing/memory-table.js';
import { testControllerContext } from '../src/testing/controllers.js';

const n = Number(process.argv[2] ?? '10000');
const CM = { group: '', version: 'v1', resource: 'configmaps' };
const verbs = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

const mt = memoryTable(coreDefinitions('namespaces', 'configmaps'));
const client = new LoopbackClient(mt.table, { username: 'admin', groups: ['system:masters'] });
const ctx = testControllerContext(client, {
  clock: realClock,
  discover: () => Promise.resolve([{ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs }]),
  onError: (e) => console.error(e),
});
const informers = ctx.informers;
const gc = new GarbageCollector(ctx);
await gc.start();
informers.start();
await informers.waitForSync();

const owner = await client.create(CM, 'default', { metadata: { name: 'owner' } });
const ref = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata?.uid ?? '' }];
let t0 = performance.now();
for (let i = 0; i < n; i++) await client.create(CM, 'default', { metadata: { name: `dep-${i}`, ownerReferences: ref } });
const createMs = performance.now() - t0;
while (!gc.idle() || gc.graph.size() < n + 1) await new Promise((r) => setTimeout(r, 10));

t0 = performance.now();
await client.delete(CM, 'default', 'owner');
for (;;) {
  const left = (await client.list(CM, 'default', { limit: 1 })).items.length;
  if (left === 0 && gc.idle()) break;
  await new Promise((r) => setTimeout(r, 20));
}
const deleteMs = performance.now() - t0;
console.log(`${n} dependents: created ${Math.round(n / (createMs / 1000))}/s; deleted by the collector ${Math.round(n / (deleteMs / 1000))}/s (${(deleteMs / 1000).toFixed(2)} s)`);
await gc.stop();
await informers.stop();
await mt.close();
