import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isApiError } from '../apimachinery/errors.js';
import type { KubeObject, WatchEvent } from '../apimachinery/types.js';
import { namespaceFinalizer } from '../naming/index.js';
import type { SubresourceStore } from '../rest/index.js';
import { MemoryStorage } from '../storage/index.js';
import { NamespaceStore } from './namespaces.js';
import { buildResourceTable, type DefaultResourceTable } from './table.js';
import { namespaceDefinition, requestContext } from '../testing/registry.js';

const ctx = requestContext();
const noDry = { dryRun: false };

function finalizersOf(obj: KubeObject): unknown {
  return (obj.spec as { finalizers?: string[] } | undefined)?.finalizers;
}

function phaseOf(obj: KubeObject): unknown {
  return (obj.status as { phase?: string } | undefined)?.phase;
}

describe('NamespaceStore', () => {
  let storage: MemoryStorage;
  let table: DefaultResourceTable;
  let namespaces: NamespaceStore;
  let finalize: SubresourceStore;

  before(() => {
    storage = new MemoryStorage();
    table = buildResourceTable([namespaceDefinition()], storage, { waitTimeoutMs: 200 });
    namespaces = table.lookup({ group: '', version: 'v1' }, 'namespaces') as NamespaceStore;
    finalize = table.lookupSubresource({ group: '', version: 'v1' }, 'namespaces', 'finalize')!;
  });

  after(async () => {
    await table.stop();
    await storage.close();
  });

  test('the table builds the namespaces store', () => {
    assert.ok(namespaces instanceof NamespaceStore);
  });

  test('create adds the namespace finalizer and the Active phase; names are DNS labels', async () => {
    const ns = await namespaces.create(ctx, '', { metadata: { name: 'team-a' } }, noDry);
    assert.deepEqual(finalizersOf(ns), [namespaceFinalizer()]);
    assert.equal(phaseOf(ns), 'Active');
    assert.equal(ns.kind, 'Namespace');
    assert.equal(ns.apiVersion, 'v1');
    await assert.rejects(namespaces.create(ctx, '', { metadata: { name: 'a.b' } }, noDry), (e) => {
      assert.ok(isApiError(e));
      assert.equal(e.message, 'Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": must not contain dots');
      return true;
    });
  });

  test('an update of the main resource keeps spec.finalizers', async () => {
    const updated = await namespaces.update(ctx, '', 'team-a', (cur) => ({ ...cur!, spec: { finalizers: [] } }), noDry);
    assert.deepEqual(finalizersOf(updated.object), [namespaceFinalizer()]);
  });

  test('delete: Terminating while spec.finalizers remain, removed after finalize empties them', async () => {
    const ac = new AbortController();
    const rv = (await namespaces.get(ctx, '', 'team-a', {})).metadata!.resourceVersion!;
    const stream = await namespaces.watch(requestContext(ac.signal), '', { resourceVersion: rv, fieldSelector: 'metadata.name=team-a' });
    const events: WatchEvent[] = [];
    const reading = (async () => {
      for await (const ev of stream) {
        events.push(ev);
        if (events.length === 2) break;
      }
    })();

    const first = await namespaces.delete(ctx, '', 'team-a', noDry);
    assert.equal(first.deleted, false);
    assert.equal(phaseOf(first.object), 'Terminating');
    assert.ok(first.object.metadata?.deletionTimestamp);
    const second = await namespaces.delete(ctx, '', 'team-a', noDry);
    assert.equal(second.deleted, false);
    assert.equal(second.object.metadata?.resourceVersion, first.object.metadata?.resourceVersion);
    const listed = await namespaces.list(ctx, '', { fieldSelector: 'status.phase=Terminating' });
    assert.deepEqual(listed.items.map((n) => n.metadata?.name), ['team-a']);

    await assert.rejects(
      finalize.update!(ctx, '', 'team-a', (cur) => ({ ...cur!, spec: { finalizers: ['not-qualified'] } }), noDry),
      /spec\.finalizers\[0\]: Invalid value: "not-qualified": name is neither a standard finalizer name nor is it fully qualified/,
    );
    const finalized = await finalize.update!(
      ctx,
      '',
      'team-a',
      (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { ignored: 'yes' } }, spec: { finalizers: [] } }),
      noDry,
    );
    assert.deepEqual(finalizersOf(finalized.object), []);
    assert.equal(finalized.object.metadata?.labels?.ignored, undefined, 'finalize changes only spec.finalizers');
    await assert.rejects(namespaces.get(ctx, '', 'team-a', {}), (e) => isApiError(e) && e.code === 404);

    const guard = setTimeout(() => ac.abort(), 5000);
    await reading;
    clearTimeout(guard);
    ac.abort();
    // Marking is one MODIFIED; emptying the last finalizer removes it without another write.
    assert.deepEqual(
      events.map((e) => e.type),
      ['MODIFIED', 'DELETED'],
    );
  });

  test('a namespace without finalizers goes at once', async () => {
    await namespaces.create(ctx, '', { metadata: { name: 'quick' } }, noDry);
    await finalize.update!(ctx, '', 'quick', (cur) => ({ ...cur!, spec: { finalizers: [] } }), noDry);
    const result = await namespaces.delete(ctx, '', 'quick', noDry);
    assert.equal(result.deleted, true);
  });

  test('metadata finalizers still hold a namespace whose spec finalizers are done', async () => {
    await namespaces.create(ctx, '', { metadata: { name: 'held', finalizers: ['example.com/hold'] } }, noDry);
    await namespaces.delete(ctx, '', 'held', noDry);
    await finalize.update!(ctx, '', 'held', (cur) => ({ ...cur!, spec: { finalizers: [] } }), noDry);
    assert.ok((await namespaces.get(ctx, '', 'held', {})).metadata?.deletionTimestamp);
    await namespaces.update(ctx, '', 'held', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, finalizers: [] } }), noDry);
    await assert.rejects(namespaces.get(ctx, '', 'held', {}), (e) => isApiError(e) && e.code === 404);
  });
});
