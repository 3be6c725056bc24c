// Binding pods to nodes through `pods/x/binding` and the core `bindings` resource.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinResourceDefinitions } from '../apis/definitions.js';
import { isApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import { MemoryStorage } from '../storage/index.js';
import { installPodBinding } from './binding.js';
import { buildResourceTable, type DefaultResourceTable } from './table.js';
import { requestContext } from '../testing/registry.js';
import type { RESTStore, SubresourceStore } from '../rest/index.js';

const ctx = requestContext();
const noDry = { dryRun: false };
const NOW = new Date('2026-03-04T05:06:07Z');
let storage: MemoryStorage;
let table: DefaultResourceTable;
let pods: RESTStore;
let bindings: RESTStore;
let binder: SubresourceStore;

async function rejects(p: Promise<unknown>, code: number, reason: string, message: string): Promise<void> {
  try {
    await p;
  } catch (e) {
    assert.ok(isApiError(e), `expected an ApiError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.equal(e.reason, reason);
    assert.equal(e.message, message);
    return;
  }
  assert.fail(`expected a ${code} error`);
}

function pod(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } };
}

function binding(name: string, node: string, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Binding', metadata: { name, ...extra }, target: { kind: 'Node', name: node } };
}

before(() => {
  storage = new MemoryStorage();
  const defs = builtinResourceDefinitions();
  table = buildResourceTable(defs, storage);
  installPodBinding(table, defs, { storage, now: () => NOW });
  pods = table.lookup({ group: '', version: 'v1' }, 'pods')!;
  binder = table.lookupSubresource({ group: '', version: 'v1' }, 'pods', 'binding')!;
  bindings = table.lookup({ group: '', version: 'v1' }, 'bindings')!;
  assert.ok(bindings, 'bindings is served');
});

after(async () => {
  await table.stop();
  await storage.close();
});

test('pods/x/binding sets the node and the PodScheduled condition; a second binding is 409', async () => {
  await pods.create!(ctx, 'b', pod('p1'), noDry);
  const status = await binder.create!(ctx, 'b', 'p1', binding('p1', 'node-a', { annotations: { 'example.com/by': 'test' } }), noDry);
  assert.deepEqual(status, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
  const bound = await pods.get!(ctx, 'b', 'p1', {});
  assert.equal((bound.spec as { nodeName?: string }).nodeName, 'node-a');
  assert.deepEqual(bound.metadata?.annotations, { 'example.com/by': 'test' });
  const conditions = (bound.status as { conditions?: unknown[] }).conditions;
  assert.deepEqual(conditions, [{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-03-04T05:06:07Z' }]);

  await rejects(
    binder.create!(ctx, 'b', 'p1', binding('p1', 'node-b'), noDry),
    409,
    'Conflict',
    'Operation cannot be fulfilled on pods/binding "p1": pod p1 is already assigned to node "node-a"',
  );
});

test('the bindings resource binds the pod its Binding names', async () => {
  await pods.create!(ctx, 'b', pod('p2'), noDry);
  await bindings.create!(ctx, 'b', binding('p2', 'node-c'), noDry);
  assert.equal(((await pods.get!(ctx, 'b', 'p2', {})).spec as { nodeName?: string }).nodeName, 'node-c');
  await rejects(
    bindings.create!(ctx, 'b', binding('p2', 'node-d'), noDry),
    409,
    'Conflict',
    'Operation cannot be fulfilled on pods/binding "p2": pod p2 is already assigned to node "node-c"',
  );
  await rejects(bindings.create!(ctx, 'b', binding('missing', 'node-c'), noDry), 404, 'NotFound', 'pods "missing" not found');
  await rejects(bindings.create!(ctx, 'b', { kind: 'Binding', target: { name: 'n' } }, noDry), 400, 'BadRequest', 'Name parameter required.');
});

test('bad bindings, gated and deleting pods, preconditions and dry run', async () => {
  await pods.create!(ctx, 'b', pod('p3'), noDry);
  await rejects(
    binder.create!(ctx, 'b', 'p3', binding('other', 'n'), noDry),
    400,
    'BadRequest',
    'name in URL does not match name in Binding object',
  );
  await rejects(
    binder.create!(ctx, 'b', 'p3', { metadata: { name: 'p3' }, target: { kind: 'Pod' } }, noDry),
    500,
    'Unknown',
    '[target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>", target.name: Required value]',
  );
  await rejects(
    binder.create!(ctx, 'b', 'p3', binding('p3', 'n', { uid: 'not-it' }), noDry),
    409,
    'Conflict',
    `Operation cannot be fulfilled on pods "p3": Precondition failed: UID in precondition: not-it, UID in object meta: ${(await pods.get!(ctx, 'b', 'p3', {})).metadata?.uid}`,
  );
  await binder.create!(ctx, 'b', 'p3', binding('p3', 'n'), { dryRun: true });
  assert.equal(((await pods.get!(ctx, 'b', 'p3', {})).spec as { nodeName?: string }).nodeName, undefined);

  await pods.create!(ctx, 'b', pod('gated', { schedulingGates: [{ name: 'example.com/wait' }] }), noDry);
  await rejects(
    binder.create!(ctx, 'b', 'gated', binding('gated', 'n'), noDry),
    409,
    'Conflict',
    'Operation cannot be fulfilled on pods/binding "gated": pod gated has non-empty .spec.schedulingGates',
  );

  await pods.create!(ctx, 'b', { ...pod('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } }, noDry);
  await pods.delete!(ctx, 'b', 'held', noDry);
  await rejects(
    binder.create!(ctx, 'b', 'held', binding('held', 'n'), noDry),
    409,
    'Conflict',
    'Operation cannot be fulfilled on pods/binding "held": pod held is being deleted, cannot be assigned to a host',
  );
});
