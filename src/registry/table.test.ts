import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStorage } from '../storage/index.js';
import { decodeContinue, encodeContinue } from './continue.js';
import { generateName, validateObjectMeta } from './objectmeta.js';
import { GenericStore } from './store.js';
import { DefaultResourceTable, buildResourceTable } from './table.js';
import { TEST_GROUP, gizmoDefinition, requestContext, widgetDefinition, widgetV2Definition } from '../testing/registry.js';
import { isApiError } from '../apimachinery/errors.js';
import type { ResourceDefinition } from '../rest/index.js';
import { builtinResourceDefinitions } from '../apis/definitions.js';
import { dns1123SubdomainName } from '../apimachinery/names.js';

test('buildResourceTable: a store per stored definition, virtual ones left out, one cache per prefix', async () => {
  const storage = new MemoryStorage();
  const virtual: ResourceDefinition = { ...widgetDefinition(), resource: 'widgetreviews', kind: 'WidgetReview', storage: undefined, strategy: undefined };
  const table = buildResourceTable([widgetDefinition(), widgetV2Definition(), gizmoDefinition(), virtual], storage);
  try {
    assert.deepEqual(
      table.all().map((s) => `${s.definition.version}/${s.definition.resource}`),
      ['v1/widgets', 'v2/widgets', 'v1/gizmos'],
    );
    assert.ok(table.lookup({ group: TEST_GROUP, version: 'v2' }, 'widgets') instanceof GenericStore);
    assert.equal(table.lookup({ group: TEST_GROUP, version: 'v1' }, 'widgetreviews'), undefined);

    let changes = 0;
    const unsubscribe = table.onChange(() => changes++);
    table.add({ definition: virtual });
    assert.equal(table.lookup({ group: TEST_GROUP, version: 'v1' }, 'widgetreviews')?.definition.kind, 'WidgetReview');
    table.remove({ group: TEST_GROUP, version: 'v1' }, 'widgetreviews');
    table.remove({ group: TEST_GROUP, version: 'v1' }, 'widgetreviews');
    assert.equal(changes, 2);
    unsubscribe();
    table.add({ definition: virtual });
    assert.equal(changes, 2);
  } finally {
    await table.stop();
    await storage.close();
  }
});

test('an empty table', () => {
  const table = new DefaultResourceTable();
  assert.deepEqual(table.all(), []);
});

test('continue tokens round-trip and reject tampering', () => {
  const token = encodeContinue({ revision: 42, start: 'ns/name\u0000' });
  assert.deepEqual(decodeContinue(token), { revision: 42, start: 'ns/name\u0000' });
  const doc = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  assert.equal(doc.v, 'meta.orch.io/v1');
  const forge = (d: unknown) => Buffer.from(JSON.stringify(d)).toString('base64url');
  assert.throws(() => decodeContinue(forge({ ...doc, rv: 0 })), /incorrect encoded start resourceVersion/);
  assert.throws(() => decodeContinue(forge({ ...doc, start: '' })), /encoded start key empty/);
  assert.throws(() => decodeContinue(forge({ ...doc, start: '../secrets/x' })), /invalid continue token/);
  assert.throws(() => decodeContinue(forge({ ...doc, v: 'other/v1' })), /does not recognize this encoded version/);
});

test('generated names and ObjectMeta rules', () => {
  assert.equal(generateName('x'.repeat(70)).length, 63);
  const errs = validateObjectMeta(
    {
      generateName: 'ok-',
      name: 'ok',
      annotations: { 'Example.com/Key': 'fine', 'bad/key/x': 'v' },
      finalizers: ['orphan', 'foregroundDeletion'],
      ownerReferences: [
        { apiVersion: 'v1', kind: 'A', name: 'a', uid: '1', controller: true },
        { apiVersion: 'v1', kind: 'B', name: 'b', uid: '2', controller: true },
      ],
    },
    false,
    dns1123SubdomainName,
  );
  const fields = errs.map((e) => e.field);
  assert.deepEqual(fields, ['metadata.annotations', 'metadata.ownerReferences', 'metadata.finalizers']);
  assert.match(errs[1].detail, /Only one reference can have Controller set to true\. Found "true" in references for A\/a and B\/b/);
  assert.deepEqual(
    validateObjectMeta({ name: 'x', namespace: 'ns' }, false, dns1123SubdomainName).map((e) => `${e.field}: ${e.detail}`),
    ['metadata.namespace: Forbidden: not allowed on this type'],
  );
  assert.deepEqual(
    validateObjectMeta({ name: 'x' }, true, dns1123SubdomainName).map((e) => `${e.field}: ${e.detail}`),
    ['metadata.namespace: Required value'],
  );
});

test('a built-in kind reports a metadata finding once', async () => {
  const storage = new MemoryStorage();
  const defs = builtinResourceDefinitions().filter((d) => d.group === '' && d.resource === 'configmaps');
  const table = buildResourceTable(defs, storage);
  try {
    const store = table.lookup({ group: '', version: 'v1' }, 'configmaps') as GenericStore;
    await assert.rejects(store.create(requestContext(), 'ns', { metadata: { name: 'Bad' } }, { dryRun: false }), (e) => {
      assert.ok(isApiError(e));
      assert.equal(e.status.details?.causes?.length, 1);
      return true;
    });
  } finally {
    await table.stop();
    await storage.close();
  }
});
