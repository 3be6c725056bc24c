import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../apimachinery/types.js';
import { goJSON, hashOfData, newRevision, nextRevisionNumber, revisionsToPrune, sameData, templateOfRevision, templatePatch } from './revisions.js';

test('the hash is FNV-1 over Go-escaped JSON with the collision count in decimal (kube HashControllerRevision)', () => {
  // Reference value computed independently for the bytes {"a":"\u003c"}7.
  assert.equal(goJSON({ a: '<' }), '{"a":"\\u003c"}');
  assert.equal(hashOfData({ a: '<' }, 7), '7649c48bbb');
  assert.notEqual(hashOfData({ a: '<' }, 8), hashOfData({ a: '<' }, 7));
  assert.equal(hashOfData({ b: 1, a: 2 }, undefined), hashOfData({ a: 2, b: 1 }, undefined), 'key order does not matter');
});

test('the patch replaces the template whole, and a revision gives the template back', () => {
  const owner: KubeObject = { metadata: { name: 'web', namespace: 'ns', uid: 'u1', annotations: { 'kubernetes.io/change-cause': 'x' } }, spec: { template: { spec: { containers: [] }, metadata: { labels: { app: 'web' } } } } };
  const data = templatePatch(owner);
  assert.equal(JSON.stringify(data), '{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"web"}},"spec":{"containers":[]}}}}');
  const r = newRevision({ owner, apiVersion: 'apps/v1', kind: 'StatefulSet', data, revision: 4, hash: 'abc', labels: { app: 'web' } });
  assert.equal(r.metadata?.name, 'web-abc');
  assert.deepEqual(r.metadata?.annotations, { 'kubernetes.io/change-cause': 'x' });
  assert.deepEqual(templateOfRevision(r), { metadata: { labels: { app: 'web' } }, spec: { containers: [] } });
  const long = newRevision({ owner: { ...owner, metadata: { ...owner.metadata, name: 'x'.repeat(253) } }, apiVersion: 'apps/v1', kind: 'StatefulSet', data, revision: 1, hash: 'abc', labels: {} });
  assert.equal(long.metadata?.name?.length, 227, 'the owner name is cut at 223');
});

test('revision numbers, equality and pruning keep what is in use', () => {
  const rev = (name: string, n: number, data: unknown = { n }): KubeObject => ({ metadata: { name }, revision: n, data });
  const all = [rev('a', 1), rev('b', 3), rev('c', 2), rev('d', 4)];
  assert.equal(nextRevisionNumber(all), 5);
  assert.equal(nextRevisionNumber([]), 1);
  assert.ok(sameData(rev('x', 1, { a: 1, b: 2 }), rev('y', 2, { b: 2, a: 1 })));
  assert.deepEqual(revisionsToPrune(all, new Set(['a']), 1).map((r) => r.metadata?.name), ['c', 'b']);
  assert.deepEqual(revisionsToPrune(all, new Set(), 10), []);
  // A hostile data key is kept as data, never as a prototype.
  const hostile = templatePatch(JSON.parse('{"spec":{"template":{"__proto__":{"polluted":true}}}}') as KubeObject);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.ok(Object.hasOwn((hostile.spec as { template: object }).template, '__proto__'));
});
