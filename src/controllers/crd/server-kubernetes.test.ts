// Black-box, Kubernetes' flavor: the group, the cleanup finalizer and the approval rule carry its names.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startAuthTestServer, type AuthTestServer } from '../../testing/server.js';
import { eventually } from '../../testing/wait.js';

const PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

describe('custom resource definitions on a server of the Kubernetes flavor', () => {
  let s: AuthTestServer;
  before(async () => {
    s = await startAuthTestServer(['--compat=kubernetes']);
  });
  after(async () => {
    await s.stop();
  });

  const definition = (group: string, annotations?: Record<string, string>): unknown => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}`, ...(annotations ? { annotations } : {}) },
    spec: {
      group,
      scope: 'Cluster',
      names: { plural: 'widgets', kind: 'Widget' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
    },
  });

  it('establishes a definition, then removes it through the k8s.io finalizer', async () => {
    const created = await s.request('POST', PATH, s.admin, definition('example.com'));
    assert.equal(created.status, 201, created.text);
    assert.deepEqual((created.json.metadata as { finalizers: string[] }).finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
    await eventually(async () => {
      const r = await s.request('GET', `${PATH}/widgets.example.com`, s.admin);
      return ((r.json.status as { conditions?: { type: string; status: string }[] }).conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
    }, 'the definition to be established', 5000);
    assert.equal((await s.request('DELETE', `${PATH}/widgets.example.com`, s.admin)).status, 200);
    await eventually(async () => (await s.request('GET', `${PATH}/widgets.example.com`, s.admin)).status === 404, 'the definition to go', 5000);
  });

  it('wants the api-approved.kubernetes.io annotation on k8s.io groups', async () => {
    const refused = await s.request('POST', PATH, s.admin, definition('widgets.k8s.io'));
    assert.equal(refused.status, 422, refused.text);
    assert.equal(
      refused.json.message,
      'CustomResourceDefinition.apiextensions.k8s.io "widgets.widgets.k8s.io" is invalid: metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
    );
    const approved = await s.request('POST', PATH, s.admin, definition('widgets.k8s.io', { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/kubernetes/pull/78458' }));
    assert.equal(approved.status, 201, approved.text);
  });
});
