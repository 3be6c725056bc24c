// NamespacedLookup: the cache first, a live list only when the cache shows none, remembered
// for a while, and never preferred to a cache that has caught up with it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeList, KubeObject } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';
import { NamespacedLookup } from './namespaced-lookup.js';

const R = { group: '', version: 'v1', resource: 'resourcequotas' };

/** A client whose watch cache and store answer separately, counting the live lists. */
function fakeClient() {
  const state = {
    cache: { revision: 1, items: [] as KubeObject[] },
    store: { revision: 1, items: [] as KubeObject[] },
    liveLists: 0,
    /** Holds live lists until released, to see concurrent callers share one. */
    gate: undefined as Promise<void> | undefined,
  };
  const answer = (v: { revision: number; items: KubeObject[] }): KubeList => ({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: String(v.revision) }, items: v.items });
  const client = {
    async list(_r: unknown, _ns: string, opts: { resourceVersion?: string } = {}): Promise<KubeList> {
      if (opts.resourceVersion === '0') return answer(state.cache);
      state.liveLists++;
      await state.gate;
      return answer(state.store);
    },
  } as unknown as ApiClient;
  return { client, state };
}

const quota = (name: string, rv: number): KubeObject => ({ metadata: { name, namespace: 'team', resourceVersion: String(rv) } });

test('a namespace without objects costs one live list per interval', async () => {
  const { client, state } = fakeClient();
  let now = 1000;
  const lookup = new NamespacedLookup(client, R, { ttlMs: 100, now: () => now });
  for (let i = 0; i < 5; i++) assert.deepEqual(await lookup.list('team'), []);
  assert.equal(state.liveLists, 1);
  now += 100;
  assert.deepEqual(await lookup.list('team'), []);
  assert.equal(state.liveLists, 2);
  await lookup.list('other');
  assert.equal(state.liveLists, 3);
});

test('the cache answers without a live list when it shows objects', async () => {
  const { client, state } = fakeClient();
  state.cache = { revision: 5, items: [quota('q', 5)] };
  const lookup = new NamespacedLookup(client, R);
  assert.deepEqual(await lookup.list('team'), [quota('q', 5)]);
  assert.equal(state.liveLists, 0);
});

test('a live answer newer than a lagging cache is used; once the cache has caught up, the cache wins', async () => {
  const { client, state } = fakeClient();
  state.store = { revision: 7, items: [quota('q', 7)] };
  const lookup = new NamespacedLookup(client, R, { now: () => 0 });
  assert.deepEqual(await lookup.list('team'), [quota('q', 7)]);
  assert.deepEqual(await lookup.list('team'), [quota('q', 7)]);
  assert.equal(state.liveLists, 1);
  // The quota was deleted and the cache has seen it: the remembered live answer is older.
  state.cache = { revision: 8, items: [] };
  assert.deepEqual(await lookup.list('team'), []);
  assert.equal(state.liveLists, 1);
});

test('concurrent lookups of one namespace share one live list', async () => {
  const { client, state } = fakeClient();
  let release!: () => void;
  state.gate = new Promise((resolve) => (release = resolve));
  state.store = { revision: 3, items: [quota('q', 3)] };
  const lookup = new NamespacedLookup(client, R);
  const answers = Array.from({ length: 4 }, () => lookup.list('team'));
  await new Promise((resolve) => setImmediate(resolve));
  release();
  for (const a of await Promise.all(answers)) assert.deepEqual(a, [quota('q', 3)]);
  assert.equal(state.liveLists, 1);
});

test('a failed live list is not remembered', async () => {
  const { client, state } = fakeClient();
  let fail = true;
  state.gate = new Promise<void>((resolve) => resolve()).then(() => {
    if (fail) throw new Error('store unavailable');
  });
  const lookup = new NamespacedLookup(client, R);
  await assert.rejects(lookup.list('team'), /store unavailable/);
  fail = false;
  state.gate = undefined;
  assert.deepEqual(await lookup.list('team'), []);
  assert.equal(state.liveLists, 2);
});
