// The controller manager: --controllers selection, and leader election between two managers
// over one store (time driven by a FakeClock).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { builtinResourceDefinitions } from '../apis/definitions.js';
import { FakeClock } from '../apimachinery/clock.js';
import type { KubeObject } from '../apimachinery/types.js';
import { setFlavor } from '../naming/index.js';
import { buildResourceTable } from '../registry/index.js';
import { LoopbackClient } from '../server/loopback.js';
import { createStorage } from '../storage/index.js';
import { leasesResource, type LeaseSpec } from './leader-election.js';
import { ControllerManager, isControllerEnabled, selectControllers, validateControllers, KNOWN_CONTROLLERS } from './manager.js';
import type { ControllerDescriptor } from './types.js';

test('--controllers: the first explicit choice wins, * turns on what is not off by default', () => {
  const off = new Set(['bootstrapsigner', 'tokencleaner']);
  const cases: [string, string[], boolean][] = [
    ['namespace', ['*'], true],
    ['bootstrapsigner', ['*'], false],
    ['bootstrapsigner', ['*', 'bootstrapsigner'], true],
    ['namespace', ['*', '-namespace'], false],
    ['namespace', ['-namespace', 'namespace'], false],
    ['namespace', ['namespace', '-namespace'], true],
    ['namespace', ['garbagecollector'], false],
    ['namespace', [], false],
    ['tokencleaner', ['tokencleaner'], true],
  ];
  for (const [name, controllers, want] of cases) {
    assert.equal(isControllerEnabled(name, off, controllers), want, `${name} with ${JSON.stringify(controllers)}`);
  }
});

test('--controllers refuses unknown names with kube-controller-manager\'s message', () => {
  assert.deepEqual(validateControllers(['*', '-namespace', 'cronjob'], KNOWN_CONTROLLERS), []);
  assert.deepEqual(validateControllers(['*', 'bogus', '-nope'], KNOWN_CONTROLLERS), [
    '"bogus" is not in the list of known controllers',
    '"nope" is not in the list of known controllers',
  ]);
  const noop = (name: string, disabledByDefault = false): ControllerDescriptor => ({ name, disabledByDefault, start: () => ({ async stop() {} }) });
  const all = [noop('namespace'), noop('garbagecollector'), noop('bootstrapsigner', true), noop('tokencleaner', true), noop('my-own', true)];
  const names = (c: string[]): string[] => selectControllers(all, c).map((d) => d.name);
  assert.deepEqual(names(['*']), ['namespace', 'garbagecollector']);
  assert.deepEqual(names(['*', '-garbagecollector', 'tokencleaner']), ['namespace', 'tokencleaner']);
  assert.deepEqual(names(['my-own']), ['my-own'], "a registered descriptor's name is known");
  assert.throws(() => selectControllers(all, ['*', 'bogus']), { message: '--controllers: "bogus" is not in the list of known controllers' });
  assert.deepEqual(names(['*', '-deployment']), ['namespace', 'garbagecollector'], 'a controller this server lacks may be turned off');
  assert.throws(() => selectControllers(all, ['*', 'deployment']), {
    message: '--controllers: "deployment" is a kube-controller-manager controller this server does not run',
  });
});

/** Lets promise chains (the store's answers) run between clock steps. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

test('two managers on one store: one leads; killed, the other takes over after the lease duration', async () => {
  setFlavor('orch');
  const storage = await createStorage({ backend: 'memory' });
  const table = buildResourceTable(builtinResourceDefinitions({ runtimeConfig: '' }), storage);
  const client = new LoopbackClient(table, { username: 'admin', groups: ['system:masters'] });
  await client.create({ group: '', version: 'v1', resource: 'namespaces' }, '', { metadata: { name: 'orch-system' } });
  const clock = new FakeClock();
  const log: string[] = [];
  const tracker = (who: string): ControllerDescriptor => ({
    name: 'namespace',
    start() {
      log.push(`${who} started`);
      return {
        async stop() {
          log.push(`${who} stopped`);
        },
      };
    },
  });
  const manager = (who: string): ControllerManager =>
    new ControllerManager({
      client,
      descriptors: [tracker(who)],
      clock,
      discover: async () => [],
      leaderElection: { identity: who, jitter: 0 },
    });
  const lease = async (): Promise<KubeObject & { spec: LeaseSpec }> => (await client.get(leasesResource(), 'orch-system', 'kube-controller-manager')) as KubeObject & { spec: LeaseSpec };
  const advance = async (ms: number): Promise<void> => {
    for (let t = 0; t < ms; t += 500) {
      clock.step(Math.min(500, ms - t));
      await settle();
    }
    await settle();
  };

  const a = manager('a');
  const b = manager('b');
  try {
    a.start();
    await advance(0);
    clock.step(0);
    await settle();
    b.start();
    await advance(1000);
    assert.ok(a.isLeader());
    assert.ok(!b.isLeader());
    assert.deepEqual(log, ['a started']);
    let l = await lease();
    assert.equal(l.spec.holderIdentity, 'a');
    assert.equal(l.spec.leaseDurationSeconds, 15);
    assert.equal(l.spec.leaseTransitions, 0);
    const acquired = l.spec.acquireTime;

    // The leader renews; the other waits however long that goes on.
    await advance(30_000);
    assert.ok(a.isLeader() && !b.isLeader());
    l = await lease();
    assert.equal(l.spec.acquireTime, acquired, 'renewals keep the acquire time');
    assert.notEqual(l.spec.renewTime, acquired);
    assert.ok(a.idle() && b.idle());

    // a dies without releasing: b waits out the lease duration (from its last sight of a renewal).
    await a.kill();
    assert.deepEqual(log, ['a started', 'a stopped']);
    await advance(12_000);
    assert.ok(!b.isLeader(), 'not before the lease duration has passed');
    await advance(6_000);
    assert.ok(b.isLeader(), 'within the lease duration and a retry period');
    assert.deepEqual(log, ['a started', 'a stopped', 'b started']);
    l = await lease();
    assert.equal(l.spec.holderIdentity, 'b');
    assert.equal(l.spec.leaseTransitions, 1);
    assert.notEqual(l.spec.acquireTime, acquired);

    // Stopping releases the Lease for the next candidate.
    await b.stop();
    assert.deepEqual(log, ['a started', 'a stopped', 'b started', 'b stopped']);
    l = await lease();
    assert.equal(l.spec.holderIdentity, '');
    assert.equal(l.spec.leaseDurationSeconds, 1);
    assert.equal(l.spec.leaseTransitions, 1);
  } finally {
    await a.stop();
    await b.stop();
    await table.stop();
    await storage.close();
  }
});

test('a leader that cannot renew within the renew deadline stops its controllers', async () => {
  setFlavor('kubernetes');
  const storage = await createStorage({ backend: 'memory' });
  const table = buildResourceTable(builtinResourceDefinitions({ runtimeConfig: '' }), storage);
  const client = new LoopbackClient(table, { username: 'admin', groups: ['system:masters'] });
  await client.create({ group: '', version: 'v1', resource: 'namespaces' }, '', { metadata: { name: 'kube-system' } });
  const clock = new FakeClock();
  let running = 0;
  const m = new ControllerManager({
    client,
    descriptors: [
      {
        name: 'garbagecollector',
        start() {
          running++;
          return {
            async stop() {
              running--;
            },
          };
        },
      },
    ],
    clock,
    discover: async () => [],
    leaderElection: { identity: 'a', jitter: 0 },
  });
  try {
    m.start();
    clock.step(0);
    await settle();
    await m.waitForStart();
    assert.ok(m.isLeader());
    assert.equal(running, 1);
    assert.equal(leasesResource().group, 'coordination.k8s.io');
    // Another holder takes the Lease from under it.
    const l = await client.get(leasesResource(), 'kube-system', 'kube-controller-manager');
    await client.update(leasesResource(), 'kube-system', { ...l, spec: { ...(l.spec as LeaseSpec), holderIdentity: 'intruder' } });
    for (let t = 0; t < 8000; t += 500) {
      clock.step(500);
      await settle();
    }
    assert.ok(m.isLeader(), 'still leading within the renew deadline');
    for (let t = 0; t < 4000; t += 500) {
      clock.step(500);
      await settle();
    }
    assert.ok(!m.isLeader());
    await settle();
    assert.equal(running, 0, 'the controllers stopped with the lost lease');
    assert.equal(m.runningControllers().length, 0);
  } finally {
    await m.stop();
    await table.stop();
    await storage.close();
    setFlavor('orch');
  }
});
