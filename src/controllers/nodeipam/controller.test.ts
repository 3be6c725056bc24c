// The node IPAM controller over the real registry (memory storage) with a FakeClock and a
// fake event recorder.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtinResourceDefinitions } from '../../apis/definitions.js';
import { FakeClock } from '../../apimachinery/clock.js';
import { ApiError } from '../../apimachinery/errors.js';
import { FakeEventRecorder } from '../../client/events.js';
import { SharedInformerFactory } from '../../client/informer-factory.js';
import { LoopbackClient } from '../../server/loopback.js';
import { memoryTable } from '../../testing/memory-table.js';
import { eventually } from '../../testing/wait.js';
import { nodeIpamConfig } from './config.js';
import { NODES, NodeIpamController } from './controller.js';

interface Harness {
  client: LoopbackClient;
  recorder: FakeEventRecorder;
  controller: NodeIpamController;
  errors: unknown[];
  createNode(name: string, spec?: Record<string, unknown>): Promise<void>;
  podCIDRs(name: string): Promise<string[] | undefined>;
  /** Waits until the informer has every node and the controller has nothing left to do. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

async function start(clusterCIDR: string, existing: { name: string; spec?: Record<string, unknown> }[] = [], masks: { v4?: number; v6?: number } = {}): Promise<Harness> {
  const defs = builtinResourceDefinitions({ runtimeConfig: '' }).filter((d) => d.group === '' && d.version === 'v1' && ['nodes', 'events'].includes(d.resource));
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const mt = memoryTable(defs, { now: () => clock.now() });
  const client = new LoopbackClient(mt.table, { username: 'admin', groups: ['system:masters'] });
  const createNode = async (name: string, spec: Record<string, unknown> = {}): Promise<void> => {
    await client.create(NODES, '', { apiVersion: 'v1', kind: 'Node', metadata: { name }, spec });
  };
  for (const n of existing) await createNode(n.name, n.spec);
  const informers = new SharedInformerFactory(client);
  const nodes = informers.informerFor(NODES);
  const recorder = new FakeEventRecorder();
  const errors: unknown[] = [];
  const config = nodeIpamConfig({
    allocateNodeCIDRs: true,
    clusterCIDR,
    nodeCIDRMaskSize: 0,
    nodeCIDRMaskSizeIPv4: masks.v4 ?? 0,
    nodeCIDRMaskSizeIPv6: masks.v6 ?? 0,
    cidrAllocatorType: 'RangeAllocator',
  })!;
  const controller = new NodeIpamController({ client, nodes, clock, config, recorder, onError: (err) => errors.push(err) }).start();
  informers.start();
  const settle = async (): Promise<void> => {
    const stored = async (): Promise<string> => (await client.list(NODES, '')).items.map((o) => `${o.metadata?.name}:${o.metadata?.resourceVersion}`).sort().join();
    let last = '';
    await eventually(async () => {
      const want = await stored();
      const have = nodes.list().map((o) => `${o.metadata?.name}:${o.metadata?.resourceVersion}`).sort().join();
      last = `${have} want ${want} idle ${controller.idle()}`;
      // Idle with the informer caught up with the store, and still so after the check (no patch in between).
      return have === want && controller.idle() && (await stored()) === want ? true : undefined;
    }, 'the controller to settle').catch((err: unknown) => {
      throw new Error(`${String(err)}: ${last} ${errors.map(String).join('; ')}`);
    });
  };
  const h: Harness = {
    client,
    recorder,
    controller,
    errors,
    createNode,
    async podCIDRs(name) {
      const spec = (await client.get(NODES, '', name)).spec as { podCIDR?: string; podCIDRs?: string[] } | undefined;
      if (spec?.podCIDRs) assert.equal(spec.podCIDR, spec.podCIDRs[0], 'podCIDR is the first of podCIDRs');
      return spec?.podCIDRs;
    },
    settle,
    async close() {
      await controller.stop();
      await informers.stop();
    },
  };
  open.push(h);
  return h;
}

describe('nodeipam controller', () => {
  it("honours an existing node's podCIDR and gives new nodes the next free ones", async () => {
    const h = await start('10.244.0.0/22', [
      { name: 'old', spec: { podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'] } },
      { name: 'a' },
    ]);
    await h.settle();
    assert.deepEqual(await h.podCIDRs('old'), ['10.244.1.0/24']);
    assert.deepEqual(await h.podCIDRs('a'), ['10.244.0.0/24']);
    await h.createNode('b');
    await h.settle();
    assert.deepEqual(await h.podCIDRs('b'), ['10.244.2.0/24']);
    assert.deepEqual(h.controller.inUse(), [3]);
    assert.deepEqual(h.errors, []);
  });

  it("tries the patch again on a conflict with the node's other writers, keeping the CIDR it chose", async () => {
    const h = await start('10.244.0.0/22');
    // The node's status and taints are written at the same moment by others: two conflicts, then it goes through.
    let conflicts = 2;
    const patch = h.client.patch.bind(h.client);
    h.client.patch = (async (...args: Parameters<LoopbackClient['patch']>) => {
      if (args[0].resource === 'nodes' && conflicts-- > 0) throw new ApiError(409, 'Conflict', `Operation cannot be fulfilled on nodes "${args[2]}": the object has been modified`);
      return patch(...args);
    }) as LoopbackClient['patch'];
    await h.createNode('a');
    await h.settle();
    assert.deepEqual(await h.podCIDRs('a'), ['10.244.0.0/24']);
    assert.deepEqual(h.controller.inUse(), [1]);
    assert.deepEqual(h.errors, []);
    assert.deepEqual(h.recorder.events.filter((e) => e.reason === 'CIDRAssignmentFailed'), []);
  });

  it('records CIDRNotAvailable when the range is exhausted, and allocates once a node is deleted', async () => {
    const h = await start('10.244.0.0/23', [{ name: 'a' }, { name: 'b' }]);
    await h.settle();
    await h.createNode('c');
    await h.settle();
    assert.equal(await h.podCIDRs('c'), undefined);
    const events = h.recorder.events.filter((e) => e.regarding.metadata?.name === 'c');
    assert.deepEqual(
      events.map((e) => [e.type, e.reason, e.note]),
      [['Normal', 'CIDRNotAvailable', 'Node c status is now: CIDRNotAvailable']],
    );
    const freed = await h.podCIDRs('a');
    await h.client.delete(NODES, '', 'a');
    await h.settle();
    assert.deepEqual(await h.podCIDRs('c'), freed);
    assert.deepEqual(h.controller.inUse(), [2]);
  });

  it('releases the CIDR of a deleted node for the next one', async () => {
    const h = await start('10.244.0.0/23', [{ name: 'a' }, { name: 'b' }]);
    await h.settle();
    const freed = await h.podCIDRs('b');
    await h.client.delete(NODES, '', 'b');
    await h.settle();
    assert.deepEqual(h.controller.inUse(), [1]);
    await h.createNode('c');
    await h.settle();
    assert.deepEqual(await h.podCIDRs('c'), freed);
    assert.equal(h.recorder.events.length, 0);
  });

  it('gives dual-stack nodes one CIDR per family, in the order of --cluster-cidr', async () => {
    const h = await start('fd00:10:244::/56,10.244.0.0/16', [{ name: 'a' }], { v4: 26 });
    await h.settle();
    assert.deepEqual(await h.podCIDRs('a'), ['fd00:10:244::/64', '10.244.0.0/26']);
  });

  it("leaves a node's podCIDR outside the ranges as it is", async () => {
    const h = await start('10.244.0.0/23', [{ name: 'elsewhere', spec: { podCIDR: '192.168.0.0/24', podCIDRs: ['192.168.0.0/24'] } }, { name: 'a' }]);
    await h.settle();
    assert.deepEqual(await h.podCIDRs('elsewhere'), ['192.168.0.0/24']);
    assert.deepEqual(await h.podCIDRs('a'), ['10.244.0.0/24']);
    assert.deepEqual(h.controller.inUse(), [1]);
  });
});


