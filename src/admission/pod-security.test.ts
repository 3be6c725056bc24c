import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import { evaluatePod } from './pod-security.js';
import { setFlavor } from '../naming/index.js';
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

test("the six checks 1.27's baseline level has beside the others, with kube's messages", () => {
  const c = (name: string, securityContext: Record<string, unknown> = {}): Record<string, unknown> => ({ name, image: 'x', securityContext });
  const cases: [Record<string, unknown>, Record<string, string>, string[]][] = [
    [{ securityContext: { sysctls: [{ name: 'kernel.core_pattern', value: '|/x' }, { name: 'net.ipv4.tcp_syncookies', value: '1' }] }, containers: [c('a')] }, {}, ['forbidden sysctls (kernel.core_pattern)']],
    [{ containers: [c('a', { procMount: 'Unmasked' })] }, {}, ['procMount (container "a" must not set securityContext.procMount to "Unmasked")']],
    [
      { securityContext: { seLinuxOptions: { type: 'spc_t' } }, containers: [c('a', { seLinuxOptions: { user: 'root' } }), c('b', { seLinuxOptions: { type: 'container_t' } })] },
      {},
      ['seLinuxOptions (pod and container "a" set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set)'],
    ],
    [{ containers: [c('a', { seccompProfile: { type: 'Unconfined' } })] }, {}, ['seccompProfile (container "a" must not set securityContext.seccompProfile.type to "Unconfined")']],
    [{ containers: [c('a')] }, { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' }, ['seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")']],
    [{ containers: [c('a')] }, { 'container.apparmor.security.beta.kubernetes.io/a': 'unconfined', 'container.apparmor.security.beta.kubernetes.io/b': 'localhost/ok' }, ['forbidden AppArmor profile (container.apparmor.security.beta.kubernetes.io/a="unconfined")']],
    [{ securityContext: { windowsOptions: { hostProcess: true } }, hostNetwork: true, containers: [c('a', { windowsOptions: { hostProcess: true } })] }, {}, ['host namespaces (hostNetwork=true)', 'hostProcess (pod and container "a" must not set securityContext.windowsOptions.hostProcess=true)']],
    [{ securityContext: { sysctls: [{ name: 'net.ipv4.ip_local_reserved_ports', value: '30000' }], seLinuxOptions: { type: 'container_init_t' } }, containers: [c('a', { procMount: 'Default', seccompProfile: { type: 'RuntimeDefault' } })] }, { 'container.apparmor.security.beta.kubernetes.io/a': 'runtime/default' }, []],
  ];
  setFlavor('kubernetes');
  for (const [spec, annotations, want] of cases) assert.deepEqual(evaluatePod('baseline', spec, annotations), want, JSON.stringify(spec));
  // Restricted includes them, with its own seccomp check in place of baseline's.
  const restricted = evaluatePod('restricted', { securityContext: { sysctls: [{ name: 'kernel.core_pattern' }] }, containers: [c('a', { seccompProfile: { type: 'Unconfined' } })] });
  assert.ok(restricted.includes('forbidden sysctls (kernel.core_pattern)'));
  assert.equal(restricted.filter((f) => f.startsWith('seccompProfile')).length, 1);
  assert.match(restricted.find((f) => f.startsWith('seccompProfile'))!, /must not set securityContext.seccompProfile.type to "Unconfined"/);
});
