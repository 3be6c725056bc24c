// Black-box: the whole server over HTTPS names, establishes and finalizes a definition.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startAuthTestServer, type AuthTestServer } from '../../testing/server.js';
import { eventually } from '../../testing/wait.js';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

const PATH = '/apis/apiextensions.orch.io/v1/customresourcedefinitions';

describe('custom resource definitions on the server', () => {
  let s: AuthTestServer;
  before(async () => {
    s = await startAuthTestServer();
  });
  after(async () => {
    await s.stop();
  });

  const definition = {
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget', shortNames: ['wd'] },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
    },
  };

  it('reaches NamesAccepted and Established with its accepted names, and goes when deleted', async () => {
    const created = await s.request('POST', PATH, s.admin, definition);
    assert.equal(created.status, 201, created.text);
    assert.deepEqual((created.json.metadata as { finalizers: string[] }).finalizers, ['customresourcecleanup.apiextensions.orch.io']);
    assert.deepEqual((created.json.status as { storedVersions: string[] }).storedVersions, ['v1']);

    const established = await eventually(async () => {
      const r = await s.request('GET', `${PATH}/widgets.example.com`, s.admin);
      const conditions = (r.json.status as { conditions?: Condition[] }).conditions ?? [];
      return conditions.some((c) => c.type === 'Established' && c.status === 'True') ? r.json : undefined;
    }, 'the definition to be established', 5000);
    const status = established.status as { acceptedNames: unknown; conditions: Condition[] };
    assert.deepEqual(status.acceptedNames, { plural: 'widgets', singular: 'widget', shortNames: ['wd'], kind: 'Widget', listKind: 'WidgetList' });
    const byType = new Map(status.conditions.map((c) => [c.type, c]));
    assert.equal(byType.get('NamesAccepted')?.status, 'True');
    assert.equal(byType.get('NamesAccepted')?.reason, 'NoConflicts');
    assert.equal(byType.get('Established')?.reason, 'InitialNamesAccepted');

    const deleted = await s.request('DELETE', `${PATH}/widgets.example.com`, s.admin);
    assert.equal(deleted.status, 200, deleted.text);
    await eventually(async () => (await s.request('GET', `${PATH}/widgets.example.com`, s.admin)).status === 404, 'the definition to go', 5000);
  });

  it('refuses a malformed definition with every problem listed, and stores nothing', async () => {
    const bad = structuredClone(definition) as { metadata: { name: string }; spec: Record<string, unknown> };
    bad.metadata.name = 'gadgets.example.com';
    bad.spec.scope = 'Global';
    bad.spec.versions = [{ name: 'v1', served: true, storage: false }];
    const r = await s.request('POST', PATH, s.admin, bad);
    assert.equal(r.status, 422, r.text);
    const causes = ((r.json.details as { causes: { field: string }[] }).causes ?? []).map((c) => c.field);
    assert.deepEqual(causes, [
      'metadata.name',
      'spec.scope',
      'spec.versions[0].schema.openAPIV3Schema',
      'spec.versions',
      'status.storedVersions',
    ]);
    assert.match(r.json.message as string, /^CustomResourceDefinition\.apiextensions\.orch\.io "gadgets\.example\.com" is invalid: \[metadata\.name: Invalid value: "gadgets\.example\.com": must be spec\.names\.plural\+"\."\+spec\.group, /);
    assert.equal((await s.request('GET', `${PATH}/gadgets.example.com`, s.admin)).status, 404);
  });
});
