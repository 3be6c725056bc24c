// The events/v1 recorder: the Event it writes, series for repeats (as client-go's events
// broadcaster keeps them), the bounded queue, and the real registry accepting what it writes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { builtinResourceDefinitions } from '../apis/definitions.js';
import { FakeClock } from '../apimachinery/clock.js';
import { ApiError } from '../apimachinery/errors.js';
import type { GroupVersionResource, KubeObject } from '../apimachinery/types.js';
import { setFlavor } from '../naming/index.js';
import { buildResourceTable } from '../registry/index.js';
import { LoopbackClient } from '../server/loopback.js';
import { createStorage } from '../storage/index.js';
import { EventBroadcaster, microTime, type EventObject, type EventSink } from './events.js';

interface Call {
  verb: 'create' | 'patch';
  namespace: string;
  name: string;
  body: unknown;
}

function recordingSink(): EventSink & { calls: Call[] } {
  const calls: Call[] = [];
  let rv = 0;
  return {
    calls,
    async create(_r: GroupVersionResource, namespace: string, obj: KubeObject) {
      calls.push({ verb: 'create', namespace, name: obj.metadata?.name ?? '', body: structuredClone(obj) });
      return { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++rv) } };
    },
    async patch(_r: GroupVersionResource, namespace: string, name: string, patch: unknown) {
      calls.push({ verb: 'patch', namespace, name, body: structuredClone(patch) });
      throw new ApiError(500, 'InternalError', 'unused');
    },
  };
}

const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'team', uid: 'u1', resourceVersion: '7' } };
const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'u2' } };

test('an Event names the reporting controller and instance, the action, the reason and both objects', async () => {
  setFlavor('orch');
  const clock = new FakeClock(Date.UTC(2024, 0, 1, 12, 0, 0, 5));
  const sink = recordingSink();
  const b = new EventBroadcaster(sink, { clock, hostname: 'host1' });
  b.newRecorder('job-controller').eventf(pod, node, 'Warning', 'BackoffLimitExceeded', 'Sync', 'Job has reached the specified backoff limit');
  b.newRecorder('job-controller').eventf(node, undefined, 'Normal', 'Started', 'Start', 'cluster-scoped');
  await b.flush();
  assert.equal(sink.calls.length, 2);
  const ev = sink.calls[0]!.body as EventObject;
  assert.equal(ev.apiVersion, 'events.orch.io/v1');
  assert.equal(ev.kind, 'Event');
  assert.equal(ev.metadata.namespace, 'team');
  assert.equal(ev.metadata.name, `web.${(BigInt(Date.UTC(2024, 0, 1, 12, 0, 0, 5)) * 1_000_000n).toString(16)}`);
  assert.equal(ev.eventTime, '2024-01-01T12:00:00.005000Z');
  assert.equal(ev.reportingController, 'job-controller');
  assert.equal(ev.reportingInstance, 'job-controller-host1');
  assert.deepEqual(
    [ev.type, ev.reason, ev.action, ev.note],
    ['Warning', 'BackoffLimitExceeded', 'Sync', 'Job has reached the specified backoff limit'],
  );
  assert.deepEqual(ev.regarding, { apiVersion: 'v1', kind: 'Pod', namespace: 'team', name: 'web', uid: 'u1', resourceVersion: '7' });
  assert.deepEqual(ev.related, { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'u2' });
  assert.equal(ev.series, undefined);
  const second = sink.calls[1]!.body as EventObject;
  assert.equal(second.metadata.namespace, 'default', 'Events about cluster-scoped objects go to the default namespace');
  assert.notEqual(second.metadata.name.split('.')[1], ev.metadata.name.split('.')[1], 'distinct names within one instant');
  await b.stop();
});

test('repeats become a series: count 2 patched at once, later counts written when the series ends', async () => {
  const clock = new FakeClock();
  const sink = recordingSink();
  sink.patch = async (_r, namespace, name, patch) => {
    sink.calls.push({ verb: 'patch', namespace, name, body: structuredClone(patch) });
    return { metadata: { name, namespace, resourceVersion: '99' } };
  };
  const b = new EventBroadcaster(sink, { clock, hostname: 'h' });
  const rec = b.newRecorder('cronjob-controller');
  rec.eventf(pod, undefined, 'Normal', 'SawCompletedJob', 'Sync', 'first');
  await b.flush();
  clock.step(1000);
  rec.eventf(pod, undefined, 'Normal', 'SawCompletedJob', 'Sync', 'the note may differ');
  await b.flush();
  const name = sink.calls[0]!.name;
  assert.deepEqual(sink.calls[1], {
    verb: 'patch',
    namespace: 'team',
    name,
    body: { series: { count: 2, lastObservedTime: microTime(clock.now()) } },
  });
  clock.step(1000);
  rec.eventf(pod, undefined, 'Normal', 'SawCompletedJob', 'Sync', 'third');
  rec.eventf(pod, undefined, 'Normal', 'SawCompletedJob', 'Sync', 'fourth');
  const lastSeen = microTime(clock.now());
  await b.flush();
  assert.equal(sink.calls.length, 2, 'further repeats are counted in memory');
  // A different reason is another Event.
  rec.eventf(pod, undefined, 'Normal', 'Other', 'Sync', 'x');
  await b.flush();
  assert.equal(sink.calls.length, 3);
  assert.equal(sink.calls[2]!.verb, 'create');
  // Quiet for six minutes: the final count is written.
  clock.step(12 * 60_000);
  await b.flush();
  const final = sink.calls.find((c, i) => i > 2 && c.verb === 'patch');
  assert.deepEqual(final, { verb: 'patch', namespace: 'team', name, body: { series: { count: 4, lastObservedTime: lastSeen } } });
  // The series has ended: the next one starts afresh.
  rec.eventf(pod, undefined, 'Normal', 'SawCompletedJob', 'Sync', 'again');
  await b.flush();
  assert.equal(sink.calls.at(-1)!.verb, 'create');
  await b.stop();
});

test('recording never blocks: a full queue drops Events, failed writes retry on the clock then give up', async () => {
  const clock = new FakeClock();
  let fail = true;
  const created: string[] = [];
  const sink: EventSink = {
    async create(_r, _ns, obj) {
      if (fail) throw new Error('connection refused');
      created.push((obj as EventObject).note);
      return obj;
    },
    async patch() {
      throw new Error('unused');
    },
  };
  const errors: unknown[] = [];
  const b = new EventBroadcaster(sink, { clock, hostname: 'h', maxQueued: 2, onError: (e) => errors.push(e) });
  const rec = b.newRecorder('c');
  const obj = (n: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n, namespace: 'ns' } });
  rec.eventf(obj('a'), undefined, 'Normal', 'R', 'A', 'a');
  await new Promise((r) => setImmediate(r));
  // 'a' is being written (and failing); two more fit in the queue, the fourth is dropped.
  rec.eventf(obj('b'), undefined, 'Normal', 'R', 'A', 'b');
  rec.eventf(obj('c'), undefined, 'Normal', 'R', 'A', 'c');
  rec.eventf(obj('d'), undefined, 'Normal', 'R', 'A', 'd');
  assert.equal(b.dropped, 1);
  await new Promise((r) => setImmediate(r));
  clock.step(10_000);
  fail = false;
  clock.step(10_000);
  await b.flush();
  assert.deepEqual(created, ['a', 'b', 'c']);
  assert.deepEqual(errors, []);
  // An event the server keeps refusing (not an API answer) is dropped after 12 tries.
  fail = true;
  rec.eventf(obj('e'), undefined, 'Normal', 'R', 'A', 'e');
  for (let i = 0; i < 12; i++) {
    await new Promise((r) => setImmediate(r));
    clock.step(10_000);
  }
  await b.flush();
  assert.equal(b.dropped, 2);
  assert.equal(errors.length, 1);
  await b.stop();
});

for (const flavor of ['orch', 'kubernetes'] as const) {
  test(`the registry accepts the Events and series the recorder writes (${flavor})`, async () => {
    setFlavor(flavor);
    const storage = await createStorage({ backend: 'memory' });
    const table = buildResourceTable(builtinResourceDefinitions({ runtimeConfig: '' }), storage);
    const client = new LoopbackClient(table, { username: 'admin', groups: ['system:masters'] });
    const clock = new FakeClock();
    const errors: unknown[] = [];
    const b = new EventBroadcaster(client, { clock, hostname: 'h', onError: (e) => errors.push(e) });
    try {
      await client.create({ group: '', version: 'v1', resource: 'namespaces' }, '', { metadata: { name: 'team' } });
      const rec = b.newRecorder('ttl-after-finished-controller');
      rec.eventf(pod, undefined, 'Normal', 'Deleted', 'Delete', 'deleted');
      await b.flush();
      clock.step(1000);
      rec.eventf(pod, undefined, 'Normal', 'Deleted', 'Delete', 'deleted');
      await b.flush();
      assert.deepEqual(errors, []);
      const events = await client.list({ group: flavor === 'orch' ? 'events.orch.io' : 'events.k8s.io', version: 'v1', resource: 'events' }, 'team');
      assert.equal(events.items.length, 1);
      const ev = events.items[0] as EventObject;
      assert.equal(ev.series?.count, 2);
      assert.equal(ev.reportingController, 'ttl-after-finished-controller');
      // The core view of the same Event.
      const core = await client.list({ group: '', version: 'v1', resource: 'events' }, 'team');
      assert.equal(core.items.length, 1);
    } finally {
      await b.stop();
      await table.stop();
      await storage.close();
      setFlavor('orch');
    }
  });
}
