// Black-box, both flavors: the admission plugin's protection finalizers (in the flavor's
// domain) come off unused claims and volumes, so deleting them, and a namespace holding a
// claim, completes; a claim a running pod uses stays until the pod is gone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startAuthTestServer, type AuthTestServer } from '../../testing/server.js';
import { eventually } from '../../testing/wait.js';

for (const [flavor, args, domain] of [
  ['orch', [], 'orch.io'],
  ['kubernetes', ['--compat=kubernetes'], 'kubernetes.io'],
] as const) {
  describe(`volume protection on a server of the ${flavor} flavor`, () => {
    let s: AuthTestServer;
    before(async () => {
      s = await startAuthTestServer([...args]);
    });
    after(async () => {
      await s?.stop();
    });

    const claim = (name: string): unknown => ({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    const status = async (path: string): Promise<number> => (await s.request('GET', path, s.admin)).status;
    const finalizersOf = (json: Record<string, unknown>): unknown => (json.metadata as { finalizers?: string[] }).finalizers;

    it('deletes an unused claim, and a namespace holding one', async () => {
      assert.equal((await s.request('POST', '/api/v1/namespaces', s.admin, { metadata: { name: 'doomed' } })).status, 201);
      const created = await s.request('POST', '/api/v1/namespaces/doomed/persistentvolumeclaims', s.admin, claim('data'));
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(finalizersOf(created.json), [`${domain}/pvc-protection`]);
      const pvc = await s.request('POST', '/api/v1/namespaces/default/persistentvolumeclaims', s.admin, claim('loose'));
      assert.equal(pvc.status, 201, pvc.text);
      assert.equal((await s.request('DELETE', '/api/v1/namespaces/default/persistentvolumeclaims/loose', s.admin)).status, 200);
      await eventually(async () => (await status('/api/v1/namespaces/default/persistentvolumeclaims/loose')) === 404, 'the unused claim to go');
      assert.equal((await s.request('DELETE', '/api/v1/namespaces/doomed', s.admin)).status, 200);
      await eventually(async () => (await status('/api/v1/namespaces/doomed')) === 404, 'the namespace to terminate');
    });

    it('keeps a claim a running pod uses until the pod is gone', async () => {
      assert.equal((await s.request('POST', '/api/v1/namespaces/default/persistentvolumeclaims', s.admin, claim('used'))).status, 201);
      const pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'user' },
        spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx' }], volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'used' } }] },
      };
      const created = await s.request('POST', '/api/v1/namespaces/default/pods', s.admin, pod);
      assert.equal(created.status, 201, created.text);
      const running = await s.request('PATCH', '/api/v1/namespaces/default/pods/user/status', { ...s.admin, headers: { 'Content-Type': 'application/merge-patch+json' } }, { status: { phase: 'Running' } });
      assert.equal(running.status, 200, running.text);
      assert.equal((await s.request('DELETE', '/api/v1/namespaces/default/persistentvolumeclaims/used', s.admin)).status, 200);
      // A claim deleted after it goes once the controller (one worker, events in order) has dealt with the first.
      assert.equal((await s.request('POST', '/api/v1/namespaces/default/persistentvolumeclaims', s.admin, claim('later'))).status, 201);
      assert.equal((await s.request('DELETE', '/api/v1/namespaces/default/persistentvolumeclaims/later', s.admin)).status, 200);
      await eventually(async () => (await status('/api/v1/namespaces/default/persistentvolumeclaims/later')) === 404, 'the later claim to go');
      const held = await s.request('GET', '/api/v1/namespaces/default/persistentvolumeclaims/used', s.admin);
      assert.equal(held.status, 200);
      assert.deepEqual(finalizersOf(held.json), [`${domain}/pvc-protection`]);
      assert.equal((await s.request('DELETE', '/api/v1/namespaces/default/pods/user?gracePeriodSeconds=0', s.admin)).status, 200);
      await eventually(async () => (await status('/api/v1/namespaces/default/persistentvolumeclaims/used')) === 404, 'the claim to go with its pod');
    });

    it('deletes an unbound volume', async () => {
      const pv = {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: `pv-${flavor}` },
        spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv' } },
      };
      const created = await s.request('POST', '/api/v1/persistentvolumes', s.admin, pv);
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(finalizersOf(created.json), [`${domain}/pv-protection`]);
      assert.equal((await s.request('DELETE', `/api/v1/persistentvolumes/pv-${flavor}`, s.admin)).status, 200);
      await eventually(async () => (await status(`/api/v1/persistentvolumes/pv-${flavor}`)) === 404, 'the volume to go');
    });
  });
}
