// Graceful deletion: the planner's rules, and pods deleted through the generic Store.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinResourceDefinitions } from '../apis/definitions.js';
import type { KubeObject, WatchEvent } from '../apimachinery/types.js';
import { MemoryStorage, createCacher, type Cacher } from '../storage/index.js';
import { planDelete } from './graceful.js';
import { resourcePrefix } from './keys.js';
import { GenericStore } from './store.js';
import { storesOfSubresources } from './subresources.js';
import { requestContext } from '../testing/registry.js';
import type { DeleteOptions, ResourceDefinition } from '../rest/index.js';

const NOW = new Date('2026-01-02T03:04:05Z');
const ctx = requestContext();
const del = (extra: Partial<DeleteOptions> = {}): DeleteOptions => ({ dryRun: false, ...extra });
const fixedGrace = { gracefulDeletePeriod: (_o: KubeObject, opts: DeleteOptions) => opts.gracePeriodSeconds ?? 30 };

describe('planDelete', () => {
  test('kinds without graceful deletion: finalizers alone decide', () => {
    assert.deepEqual(planDelete({}, { metadata: { name: 'a' } }, del(), NOW), { kind: 'remove' });
    const held = planDelete({}, { metadata: { name: 'a', finalizers: ['x/y'], generation: 3 } }, del({ gracePeriodSeconds: 10 }), NOW);
    assert.equal(held.kind, 'update');
    assert.deepEqual(held.kind === 'update' && held.object.metadata, {
      name: 'a',
      finalizers: ['x/y'],
      generation: 4,
      deletionTimestamp: '2026-01-02T03:04:05Z',
      deletionGracePeriodSeconds: 0,
    });
    const marked = { metadata: { name: 'a', finalizers: ['x/y'], deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 } };
    assert.deepEqual(planDelete({}, marked, del(), NOW), { kind: 'unchanged' });
  });

  test('a first graceful delete sets the timestamp grace seconds ahead', () => {
    const plan = planDelete(fixedGrace, { metadata: { name: 'p', generation: 1 } }, del(), NOW);
    assert.equal(plan.kind, 'update');
    const m = plan.kind === 'update' ? plan.object.metadata : undefined;
    assert.equal(m?.deletionTimestamp, '2026-01-02T03:04:35Z');
    assert.equal(m?.deletionGracePeriodSeconds, 30);
    assert.equal(m?.generation, 2);
  });

  test('grace 0 marks, then removes; negative grace reads as one second', () => {
    const zero = planDelete(fixedGrace, { metadata: { name: 'p' } }, del({ gracePeriodSeconds: 0 }), NOW);
    assert.equal(zero.kind, 'updateThenRemove');
    assert.equal(zero.kind === 'updateThenRemove' && zero.object.metadata?.deletionTimestamp, '2026-01-02T03:04:05Z');
    const negative = planDelete(fixedGrace, { metadata: { name: 'p' } }, del({ gracePeriodSeconds: -5 }), NOW);
    assert.equal(negative.kind === 'update' && negative.object.metadata?.deletionGracePeriodSeconds, 1);
    const held = planDelete(fixedGrace, { metadata: { name: 'p', finalizers: ['x/y'] } }, del({ gracePeriodSeconds: 0 }), NOW);
    assert.equal(held.kind, 'update');
  });

  test('a pending deletion may only be shortened', () => {
    const pending = { metadata: { name: 'p', deletionTimestamp: '2026-01-02T03:04:35Z', deletionGracePeriodSeconds: 30 } };
    assert.deepEqual(planDelete(fixedGrace, pending, del(), NOW), { kind: 'unchanged' });
    assert.deepEqual(planDelete(fixedGrace, pending, del({ gracePeriodSeconds: 30 }), NOW), { kind: 'unchanged' });
    assert.deepEqual(planDelete(fixedGrace, pending, del({ gracePeriodSeconds: 60 }), NOW), { kind: 'unchanged' });
    const shorter = planDelete(fixedGrace, pending, del({ gracePeriodSeconds: 10 }), NOW);
    assert.equal(shorter.kind, 'update');
    // The new deadline counts from when the deletion started (35 - 30 + 10).
    assert.equal(shorter.kind === 'update' && shorter.object.metadata?.deletionTimestamp, '2026-01-02T03:04:15Z');
    assert.equal(shorter.kind === 'update' && shorter.object.metadata?.deletionGracePeriodSeconds, 10);
    assert.equal(planDelete(fixedGrace, pending, del({ gracePeriodSeconds: 0 }), NOW).kind, 'updateThenRemove');
  });

  test('a deletion marked without grace finishes at once', () => {
    const interrupted = { metadata: { name: 'p', deletionTimestamp: '2026-01-02T03:00:00Z', deletionGracePeriodSeconds: 0 } };
    assert.deepEqual(planDelete(fixedGrace, interrupted, del(), NOW), { kind: 'remove' });
  });
});

describe('pods deleted through the Store', () => {
  let storage: MemoryStorage;
  let cacher: Cacher;
  let pods: GenericStore;

  before(() => {
    storage = new MemoryStorage();
    const def = builtinResourceDefinitions().find((d) => d.group === '' && d.resource === 'pods') as ResourceDefinition;
    cacher = createCacher(storage, resourcePrefix(def.storage!));
    pods = new GenericStore(def, { storage, cacher, now: () => NOW });
  });

  after(async () => {
    await cacher.stop();
    await storage.close();
  });

  function pod(name: string, spec: Record<string, unknown> = {}): KubeObject {
    return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } };
  }

  async function watchDuring(rv: string, n: number, action: () => Promise<void>): Promise<WatchEvent[]> {
    const ac = new AbortController();
    const stream = await pods.watch(requestContext(ac.signal), 'g', { resourceVersion: rv });
    const events: WatchEvent[] = [];
    const reading = (async () => {
      for await (const ev of stream) {
        events.push(ev);
        if (events.length >= n) break;
      }
    })();
    await action();
    const guard = setTimeout(() => ac.abort(), 5000);
    await reading;
    clearTimeout(guard);
    ac.abort();
    return events;
  }

  test('a scheduled pod waits its termination grace period; a later delete may shorten it', async () => {
    await pods.create(ctx, 'g', pod('bound', { nodeName: 'node-1', terminationGracePeriodSeconds: 45 }), { dryRun: false });
    const first = await pods.delete(ctx, 'g', 'bound', del());
    assert.equal(first.deleted, false);
    assert.equal(first.object.metadata?.deletionTimestamp, '2026-01-02T03:04:50Z');
    assert.equal(first.object.metadata?.deletionGracePeriodSeconds, 45);
    assert.equal((await pods.get(ctx, 'g', 'bound', {})).metadata?.deletionGracePeriodSeconds, 45);

    const again = await pods.delete(ctx, 'g', 'bound', del());
    assert.equal(again.deleted, false);
    assert.equal(again.object.metadata?.resourceVersion, first.object.metadata?.resourceVersion);

    const shorter = await pods.delete(ctx, 'g', 'bound', del({ gracePeriodSeconds: 5 }));
    assert.equal(shorter.deleted, false);
    assert.equal(shorter.object.metadata?.deletionTimestamp, '2026-01-02T03:04:10Z');
    assert.equal(shorter.object.metadata?.deletionGracePeriodSeconds, 5);

    const rv = shorter.object.metadata?.resourceVersion ?? '';
    const events = await watchDuring(rv, 2, async () => {
      const now = await pods.delete(ctx, 'g', 'bound', del({ gracePeriodSeconds: 0 }));
      assert.equal(now.deleted, true);
      assert.equal(now.object.metadata?.deletionGracePeriodSeconds, 0);
    });
    assert.deepEqual(
      events.map((e) => `${e.type} ${e.object.metadata?.deletionGracePeriodSeconds}`),
      ['MODIFIED 0', 'DELETED 0'],
    );
    await assert.rejects(pods.get(ctx, 'g', 'bound', {}), { code: 404 });
  });

  test('the default grace period is 30 seconds; DeleteOptions override it', async () => {
    await pods.create(ctx, 'g', pod('default', { nodeName: 'node-1' }), { dryRun: false });
    const out = await pods.delete(ctx, 'g', 'default', del());
    assert.equal(out.object.metadata?.deletionGracePeriodSeconds, 30);
    await pods.create(ctx, 'g', pod('asked', { nodeName: 'node-1' }), { dryRun: false });
    const asked = await pods.delete(ctx, 'g', 'asked', del({ gracePeriodSeconds: 7 }));
    assert.equal(asked.object.metadata?.deletionGracePeriodSeconds, 7);
    assert.equal(asked.object.metadata?.deletionTimestamp, '2026-01-02T03:04:12Z');
  });

  test('unscheduled and finished pods go at once', async () => {
    await pods.create(ctx, 'g', pod('pending'), { dryRun: false });
    const pending = await pods.delete(ctx, 'g', 'pending', del({ gracePeriodSeconds: 60 }));
    assert.equal(pending.deleted, true);
    assert.equal(pending.object.metadata?.deletionGracePeriodSeconds, 0);
    await assert.rejects(pods.get(ctx, 'g', 'pending', {}), { code: 404 });

    await pods.create(ctx, 'g', pod('done', { nodeName: 'node-1' }), { dryRun: false });
    const status = storesOfSubresources(pods).find((s) => s.definition.name === 'status')!;
    await status.update!(ctx, 'g', 'done', (cur) => ({ ...cur!, status: { ...(cur!.status as object), phase: 'Succeeded' } }), { dryRun: false });
    const done = await pods.delete(ctx, 'g', 'done', del());
    assert.equal(done.deleted, true);
    await assert.rejects(pods.get(ctx, 'g', 'done', {}), { code: 404 });
  });

  test('dry run reports the marked pod and writes nothing', async () => {
    const created = await pods.create(ctx, 'g', pod('dry', { nodeName: 'node-1' }), { dryRun: false });
    const out = await pods.delete(ctx, 'g', 'dry', { dryRun: true });
    assert.equal(out.deleted, false);
    assert.equal(out.object.metadata?.deletionGracePeriodSeconds, 30);
    const stored = await pods.get(ctx, 'g', 'dry', {});
    assert.equal(stored.metadata?.deletionTimestamp, undefined);
    assert.equal(stored.metadata?.resourceVersion, created.metadata?.resourceVersion);
  });
});
