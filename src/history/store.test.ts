import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { WriteRecord } from '../rest/index.js';
import { HistoryStore } from './store.js';

function write(name: string, uid: string, rv: number, verb: WriteRecord['verb'] = 'update', data: Record<string, string> = {}): WriteRecord {
  return {
    group: '',
    resource: 'configmaps',
    apiVersion: 'v1',
    kind: 'ConfigMap',
    verb,
    user: { username: 'u', groups: ['g'] },
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', uid, resourceVersion: String(rv) }, data },
  };
}

it('keeps revisions per object in resourceVersion order, once each, and copies the object', () => {
  let now = 0;
  const s = new HistoryStore({ retention: { maxCount: 10 }, now: () => now });
  const w = write('a', 'u1', 5, 'create', { k: '1' });
  s.record(w);
  (w.object as { data: Record<string, string> }).data.k = 'changed later';
  now = 1;
  s.record(write('a', 'u1', 9));
  s.record(write('a', 'u1', 7)); // reported late
  s.record(write('a', 'u1', 9)); // a write that changed nothing
  const h = s.byTargetUid('u1')!;
  assert.deepEqual(h.revisions.map((r) => r.resourceVersion), [5, 7, 9]);
  assert.equal(h.revisions[0]!.operation, 'Create');
  assert.match(h.revisions[0]!.text, /"k":"1"/);
  // Objects without uid or resourceVersion are not revisions.
  s.record({ ...write('b', '', 3) });
  s.record({ ...write('b', 'u2', 0) });
  assert.equal(s.select({ group: '', resource: 'configmaps' }).length, 1);
});

it('applies the retention per object, keeping the newest, and finds deleted objects by name', () => {
  let now = 0;
  const s = new HistoryStore({ retention: { maxCount: 2, maxAgeMs: 1000 }, now: () => now });
  for (let rv = 1; rv <= 4; rv++) s.record(write('a', 'u1', rv));
  assert.deepEqual(s.byTargetUid('u1')!.revisions.map((r) => r.resourceVersion), [3, 4]);
  assert.equal(s.byTargetUid('u1')!.first, 3);
  s.record(write('a', 'u1', 5, 'delete'));
  now = 5000;
  s.prune();
  const h = s.select({ group: '', resource: 'configmaps', namespace: 'ns', name: 'a' });
  assert.equal(h.length, 1);
  assert.deepEqual(h[0]!.revisions.map((r) => [r.resourceVersion, r.operation]), [[5, 'Delete']]);
  // A new object of the same name has a history of its own.
  s.record(write('a', 'u9', 10, 'create'));
  assert.equal(s.select({ group: '', resource: 'configmaps', namespace: 'ns', name: 'a' }).length, 2);
  assert.equal(s.select({ group: '', resource: 'configmaps', namespace: 'other', name: 'a' }).length, 0);
  assert.equal(s.select({ group: 'apps', resource: 'configmaps' }).length, 0);
});

it('evicts the oldest revisions beyond the byte cap', () => {
  const big = 'x'.repeat(10_000);
  const s = new HistoryStore({ retention: { maxCount: 1000 }, maxBytes: 100_000 });
  for (let rv = 1; rv <= 40; rv++) s.record(write(`o${rv % 4}`, `u${rv % 4}`, rv, 'update', { big }));
  assert.ok(s.size <= 100_000, String(s.size));
  const kept = s.select({ group: '', resource: 'configmaps' }).flatMap((h) => h.revisions.map((r) => r.resourceVersion));
  assert.ok(kept.length > 0 && kept.length < 40);
  // What stays is the newest.
  assert.deepEqual([...kept].sort((a, b) => a - b), Array.from({ length: kept.length }, (_, i) => 40 - kept.length + 1 + i));
});
