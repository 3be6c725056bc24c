import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import { setFlavor } from '../naming/index.js';
import { mountServiceAccountToken } from './service-account.js';
import { fixture, pod, R } from '../testing/admission.js';

type Spec = { volumes?: { name: string; projected?: unknown }[]; containers: { volumeMounts?: unknown[] }[]; initContainers?: { volumeMounts?: unknown[] }[]; serviceAccountName?: string; imagePullSecrets?: unknown[] };
const specOf = (p: KubeObject): Spec => p.spec as Spec;

function forbidden(message: string): (e: unknown) => boolean {
  return (e: unknown) => {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(e.code, 403);
    assert.equal(e.reason, 'Forbidden');
    assert.equal(e.message, message);
    return true;
  };
}

test('a pod runs as the default account with a projected token volume in every container', async () => {
  const f = await fixture();
  try {
    const created = await f.client.create(R.pods, 'team', pod('web', { initContainers: [{ name: 'init', image: 'busybox' }] }));
    const spec = specOf(created);
    assert.equal(spec.serviceAccountName, 'default');
    const volume = spec.volumes?.find((v) => v.name.startsWith('orch-api-access-'));
    assert.ok(volume, JSON.stringify(spec.volumes));
    assert.match(volume.name, /^orch-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.deepEqual(volume.projected, {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'orch-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    });
    const mount = { name: volume.name, readOnly: true, mountPath: '/var/run/secrets/orch.io/serviceaccount' };
    assert.deepEqual(spec.containers[0]!.volumeMounts, [mount]);
    assert.deepEqual(spec.initContainers?.[0]!.volumeMounts, [mount]);
  } finally {
    await f.close();
  }
});

test('automounting: the pod decides first, then the account; image pull secrets come from the account', async () => {
  const f = await fixture();
  try {
    await f.plain.create(R.serviceaccounts, 'team', { metadata: { name: 'quiet' }, automountServiceAccountToken: false, imagePullSecrets: [{ name: 'registry' }] });
    const quiet = specOf(await f.client.create(R.pods, 'team', pod('a', { serviceAccountName: 'quiet' })));
    assert.equal(quiet.volumes, undefined);
    assert.deepEqual(quiet.imagePullSecrets, [{ name: 'registry' }]);
    const forced = specOf(await f.client.create(R.pods, 'team', pod('b', { serviceAccountName: 'quiet', automountServiceAccountToken: true, imagePullSecrets: [{ name: 'own' }] })));
    assert.equal(forced.volumes?.length, 1);
    assert.deepEqual(forced.imagePullSecrets, [{ name: 'own' }]);
    const off = specOf(await f.client.create(R.pods, 'team', pod('c', { automountServiceAccountToken: false })));
    assert.equal(off.volumes, undefined);
    assert.equal(off.containers[0]!.volumeMounts, undefined);
  } finally {
    await f.close();
  }
});

test('a missing service account is refused with the lookup error', async () => {
  const f = await fixture();
  try {
    await assert.rejects(
      f.client.create(R.pods, 'team', pod('x', { serviceAccountName: 'ghost' })),
      forbidden('pods "x" is forbidden: error looking up service account team/ghost: serviceaccount "ghost" not found'),
    );
    await assert.rejects(
      f.client.create(R.pods, 'team', { metadata: { generateName: 'gen-' }, spec: { serviceAccountName: 'ghost', containers: [{ name: 'a', image: 'a' }] } }),
      forbidden('pods "gen-" is forbidden: error looking up service account team/ghost: serviceaccount "ghost" not found'),
    );
  } finally {
    await f.close();
  }
});

test('a container that mounts something at the token path keeps it; the kubernetes flavor names the volume kube-api-access', () => {
  setFlavor('kubernetes');
  try {
    const spec: Record<string, unknown> = {
      containers: [
        { name: 'own', volumeMounts: [{ name: 'mine', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }] },
        { name: 'plain' },
      ],
      volumes: [{ name: 'kube-api-access-bbbbb' }],
    };
    let calls = 0;
    mountServiceAccountToken(spec, () => (calls++ === 0 ? 'bbbbb' : 'ccccc'));
    const s = spec as unknown as Spec;
    // The existing token-named volume is reused, not duplicated.
    assert.equal(s.volumes?.length, 1);
    assert.equal(calls, 0);
    assert.deepEqual(s.containers[0]!.volumeMounts, [{ name: 'mine', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
    assert.deepEqual(s.containers[1]!.volumeMounts, [{ name: 'kube-api-access-bbbbb', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
  } finally {
    setFlavor('orch');
  }
});
