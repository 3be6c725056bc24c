import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import { evaluatePod } from './pod-security.js';
import { fixture, pod, R } from '../testing/admission.js';
import type { AdmissionAttributes } from './types.js';

test('the restricted level lists every finding in check order', () => {
  const spec = { containers: [{ name: 'app', image: 'nginx' }, { name: 'side', image: 'busybox', securityContext: { capabilities: { add: ['SYS_TIME'] } } }] };
  assert.deepEqual(evaluatePod('restricted', spec), [
    'allowPrivilegeEscalation != false (containers "app", "side" must set securityContext.allowPrivilegeEscalation=false)',
    'non-default capabilities (container "side" must not include "SYS_TIME" in securityContext.capabilities.add)',
    'unrestricted capabilities (containers "app", "side" must set securityContext.capabilities.drop=["ALL"]; container "side" must not include "SYS_TIME" in securityContext.capabilities.add)',
    'runAsNonRoot != true (pod or containers "app", "side" must set securityContext.runAsNonRoot=true)',
    'seccompProfile (pod or containers "app", "side" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
  ]);
  const compliant = {
    securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [{ name: 'app', image: 'nginx', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } } }],
    volumes: [{ name: 'cfg', configMap: { name: 'c' } }],
  };
  assert.deepEqual(evaluatePod('restricted', compliant), []);
  assert.deepEqual(evaluatePod('privileged', { hostNetwork: true, containers: [{ name: 'a', securityContext: { privileged: true } }] }), []);
});

test('the baseline level: host namespaces, host paths, host ports, privileged containers', () => {
  const spec = {
    hostNetwork: true,
    hostPID: true,
    volumes: [{ name: 'root', hostPath: { path: '/' } }],
    containers: [{ name: 'a', securityContext: { privileged: true }, ports: [{ containerPort: 80, hostPort: 8080 }] }],
  };
  assert.deepEqual(evaluatePod('baseline', spec), [
    'host namespaces (hostNetwork=true, hostPID=true)',
    'hostPath volumes (volume "root")',
    'hostPort (container "a" uses hostPort 8080)',
    'privileged (container "a" must not set securityContext.privileged=true)',
  ]);
});

test('the namespace labels enforce and warn', async () => {
  const f = await fixture();
  try {
    await f.plain.create(R.namespaces, '', { metadata: { name: 'locked', labels: { 'pod-security.orch.io/enforce': 'baseline', 'pod-security.orch.io/warn': 'restricted' } } });
    await f.plain.create(R.serviceaccounts, 'locked', { metadata: { name: 'default' } });
    await assert.rejects(f.client.create(R.pods, 'locked', pod('priv', { containers: [{ name: 'a', image: 'i', securityContext: { privileged: true } }] })), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, 403);
      assert.equal(e.message, 'pods "priv" is forbidden: violates PodSecurity "baseline:latest": privileged (container "a" must not set securityContext.privileged=true)');
      return true;
    });
    // Baseline-compliant pods run; the restricted findings come back as a warning.
    const ok = await f.client.create(R.pods, 'locked', pod('plain'));
    assert.equal(ok.metadata?.name, 'plain');
    const attrs: AdmissionAttributes = {
      operation: 'CREATE',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: R.pods,
      subresource: '',
      namespace: 'locked',
      name: 'w',
      object: pod('w', { securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } } }),
      user: { username: 'admin', groups: [] },
      dryRun: true,
      warnings: [],
    };
    await f.chain.admit(attrs);
    await f.chain.validate(attrs);
    assert.deepEqual(attrs.warnings, [
      'would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "app" must set securityContext.capabilities.drop=["ALL"])',
    ]);
    // A namespace without labels is privileged.
    await f.client.create(R.pods, 'team', pod('anything', { hostNetwork: true }));
  } finally {
    await f.close();
  }
});
