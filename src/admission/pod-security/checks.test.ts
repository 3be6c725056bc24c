import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlavor } from '../../naming/index.js';
import { parseVersion, type Level, type LevelVersion } from './api.js';
import type { PodView } from './check.js';
import { evaluatePod, forbiddenDetail, NEWEST_MINOR } from './evaluate.js';

const lv = (level: Level, version = 'latest'): LevelVersion => ({ level, version: parseVersion(version)! });
const view = (spec: Record<string, unknown>, annotations: Record<string, string> = {}): PodView => ({ spec, annotations });
const judge = (level: Level, spec: Record<string, unknown>, opts: { version?: string; annotations?: Record<string, string> } = {}): string[] =>
  evaluatePod(lv(level, opts.version), view(spec, opts.annotations)).map((f) => forbiddenDetail([f]));

/** A pod that passes the restricted level. */
const restrictedPod = (extra: Record<string, unknown> = {}, container: Record<string, unknown> = {}): Record<string, unknown> => ({
  securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' }, ...((extra.securityContext as object) ?? {}) },
  containers: [{ name: 'app', image: 'i', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } }, ...container }],
  ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'securityContext')),
});

describe('Pod Security checks: the six baseline checks 1.27 has', () => {
  setFlavor('kubernetes');

  it('sysctls: only the safe set; net.ipv4.ip_local_reserved_ports from v1.27', () => {
    const spec = { securityContext: { sysctls: [{ name: 'kernel.core_pattern', value: '|/tmp/x' }, { name: 'kernel.shm_rmid_forced', value: '1' }, { name: 'net.ipv4.ip_local_reserved_ports', value: '1' }] }, containers: [{ name: 'a' }] };
    assert.deepEqual(judge('baseline', spec), ['forbidden sysctls (kernel.core_pattern)']);
    assert.deepEqual(judge('baseline', spec, { version: 'v1.26' }), ['forbidden sysctls (kernel.core_pattern, net.ipv4.ip_local_reserved_ports)']);
    // Pinned to a version newer than any check: the newest checks.
    assert.deepEqual(judge('baseline', spec, { version: 'v1.99' }), ['forbidden sysctls (kernel.core_pattern)']);
    assert.equal(NEWEST_MINOR, 27);
  });

  it('seLinuxOptions: container types only, no user or role; pod and containers named together', () => {
    const spec = {
      securityContext: { seLinuxOptions: { type: 'spc_t' } },
      containers: [
        { name: 'a', securityContext: { seLinuxOptions: { user: 'system_u', role: 'system_r', type: 'container_t' } } },
        { name: 'b', securityContext: { seLinuxOptions: { type: 'unconfined_t', level: 's0:c1' } } },
        { name: 'ok', securityContext: { seLinuxOptions: { type: 'container_kvm_t', level: 's0' } } },
      ],
    };
    assert.deepEqual(judge('baseline', spec), [
      'seLinuxOptions (pod and containers "a", "b" set forbidden securityContext.seLinuxOptions: types "spc_t", "unconfined_t"; user may not be set; role may not be set)',
    ]);
    assert.deepEqual(judge('baseline', { containers: [{ name: 'a', securityContext: { seLinuxOptions: { role: 'r' } } }] }), [
      'seLinuxOptions (container "a" set forbidden securityContext.seLinuxOptions: role may not be set)',
    ]);
  });

  it('appArmorProfile: runtime/default, localhost/* or empty; every offending annotation, sorted', () => {
    const annotations = {
      'container.apparmor.security.beta.kubernetes.io/b': 'unconfined',
      'container.apparmor.security.beta.kubernetes.io/a': 'x"y',
      'container.apparmor.security.beta.kubernetes.io/ok': 'localhost/mine',
      'container.apparmor.security.beta.kubernetes.io/ok2': 'runtime/default',
      'container.apparmor.security.beta.kubernetes.io/ok3': '',
      'unrelated/annotation': 'unconfined',
    };
    assert.deepEqual(judge('baseline', { containers: [{ name: 'a' }] }, { annotations }), [
      'forbidden AppArmor profiles (container.apparmor.security.beta.kubernetes.io/a="x\\"y", container.apparmor.security.beta.kubernetes.io/b="unconfined")',
    ]);
    assert.deepEqual(judge('baseline', { containers: [{ name: 'a' }] }, { annotations: { 'container.apparmor.security.beta.kubernetes.io/a': 'unconfined' } }), [
      'forbidden AppArmor profile (container.apparmor.security.beta.kubernetes.io/a="unconfined")',
    ]);
  });

  it('procMount: Default or unset', () => {
    const spec = { containers: [{ name: 'a', securityContext: { procMount: 'Unmasked' } }, { name: 'b', securityContext: { procMount: 'Default' } }] };
    assert.deepEqual(judge('baseline', spec), ['procMount (container "a" must not set securityContext.procMount to "Unmasked")']);
  });

  it('seccompProfile (baseline): the fields from v1.19, the alpha annotations before', () => {
    const spec = { securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [{ name: 'a', securityContext: { seccompProfile: { type: 'Unconfined' } } }, { name: 'b', securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' } } }] };
    assert.deepEqual(judge('baseline', spec), ['seccompProfile (pod and container "a" must not set securityContext.seccompProfile.type to "Unconfined")']);
    const annotations = { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined', 'container.seccomp.security.alpha.kubernetes.io/a': 'docker/default', 'container.seccomp.security.alpha.kubernetes.io/b': 'unconfined' };
    assert.deepEqual(judge('baseline', { containers: [{ name: 'a' }, { name: 'b' }] }, { version: 'v1.18', annotations }), [
      'seccompProfile (forbidden annotations container.seccomp.security.alpha.kubernetes.io/b="unconfined", seccomp.security.alpha.kubernetes.io/pod="unconfined")',
    ]);
    // From v1.19 the annotations are not read; before it the fields are not.
    assert.deepEqual(judge('baseline', { containers: [{ name: 'a' }, { name: 'b' }] }, { annotations }), []);
    assert.deepEqual(judge('baseline', spec, { version: 'v1.18' }), []);
  });

  it('windowsHostProcess: never true, on the pod or a container', () => {
    const spec = { securityContext: { windowsOptions: { hostProcess: true } }, containers: [{ name: 'a', securityContext: { windowsOptions: { hostProcess: true } } }, { name: 'b', securityContext: { windowsOptions: { hostProcess: false } } }] };
    assert.deepEqual(judge('baseline', spec), ['hostProcess (pod and container "a" must not set securityContext.windowsOptions.hostProcess=true)']);
  });

  it('the restricted level runs them too, each before the restricted checks', () => {
    const spec = restrictedPod({ securityContext: { sysctls: [{ name: 'kernel.core_pattern', value: 'x' }] } }, { securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, procMount: 'Unmasked' } });
    assert.deepEqual(judge('restricted', spec), ['procMount (container "app" must not set securityContext.procMount to "Unmasked")', 'forbidden sysctls (kernel.core_pattern)']);
  });

  it('the orch flavor reads the annotations under its own domain', () => {
    setFlavor('orch');
    try {
      const annotations = { 'container.apparmor.security.beta.orch.io/a': 'unconfined', 'container.apparmor.security.beta.kubernetes.io/a': 'unconfined' };
      assert.deepEqual(judge('baseline', { containers: [{ name: 'a' }] }, { annotations }), ['forbidden AppArmor profile (container.apparmor.security.beta.orch.io/a="unconfined")']);
    } finally {
      setFlavor('kubernetes');
    }
  });
});

describe('Pod Security checks: the existing checks as 1.27 words and orders them', () => {
  setFlavor('kubernetes');

  it('restricted lists baseline findings first, each level by identifier; restricted checks replace the baseline ones they tighten', () => {
    const spec = {
      hostNetwork: true,
      volumes: [{ name: 'root', hostPath: { path: '/' } }],
      containers: [{ name: 'app', image: 'nginx' }, { name: 'side', image: 'busybox', securityContext: { capabilities: { add: ['SYS_TIME', 'NET_RAW', 'SYS_TIME'] } } }],
    };
    assert.deepEqual(judge('restricted', spec), [
      'host namespaces (hostNetwork=true)',
      'allowPrivilegeEscalation != false (containers "app", "side" must set securityContext.allowPrivilegeEscalation=false)',
      'unrestricted capabilities (containers "app", "side" must set securityContext.capabilities.drop=["ALL"]; container "side" must not include "NET_RAW", "SYS_TIME" in securityContext.capabilities.add)',
      'restricted volume types (volume "root" uses restricted volume type "hostPath")',
      'runAsNonRoot != true (pod or containers "app", "side" must set securityContext.runAsNonRoot=true)',
      'seccompProfile (pod or containers "app", "side" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    ]);
    assert.deepEqual(judge('baseline', spec), [
      'non-default capabilities (container "side" must not include "NET_RAW", "SYS_TIME" in securityContext.capabilities.add)',
      'host namespaces (hostNetwork=true)',
      'hostPath volumes (volume "root")',
    ]);
  });

  it('host ports and capabilities are listed as sorted sets', () => {
    const spec = { containers: [{ name: 'a', ports: [{ containerPort: 1, hostPort: 8080 }, { containerPort: 2, hostPort: 10000 }] }, { name: 'b', ports: [{ containerPort: 3, hostPort: 8080 }, { containerPort: 4 }] }] };
    assert.deepEqual(judge('baseline', spec), ['hostPort (containers "a", "b" use hostPorts 10000, 8080)']);
  });

  it('pod and containers are named together when both set a forbidden value', () => {
    const spec = restrictedPod({ securityContext: { runAsNonRoot: false, runAsUser: 0, seccompProfile: { type: 'Unconfined' } } }, { securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: false, runAsUser: 0, seccompProfile: { type: 'Unconfined' } } });
    assert.deepEqual(judge('restricted', spec), [
      'runAsNonRoot != true (pod and container "app" must not set securityContext.runAsNonRoot=false)',
      'runAsUser=0 (pod and container "app" must not set runAsUser=0)',
      'seccompProfile (pod and container "app" must not set securityContext.seccompProfile.type to "Unconfined")',
    ]);
  });

  it('restricted volume types are named as the standard names them; a volume without a known source is "unknown"', () => {
    const spec = restrictedPod({ volumes: [{ name: 'n', nfs: { server: 's', path: '/' } }, { name: 'g', gitRepo: { repository: 'r' } }, { name: 'x', hostPath: null }, { name: 'c', configMap: { name: 'c' } }, { name: 's', storageos: {} }] });
    assert.deepEqual(judge('restricted', spec), ['restricted volume types (volumes "n", "g", "x", "s" use restricted volume types "gitRepo", "nfs", "storageos", "unknown")']);
  });

  it('policy versions: each check from its first version, in the form of the version asked for', () => {
    const spec = { containers: [{ name: 'a', securityContext: { runAsNonRoot: true, runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' }, allowPrivilegeEscalation: false, capabilities: { add: ['SYS_ADMIN'] } } }] };
    assert.deepEqual(judge('restricted', spec), [
      'unrestricted capabilities (container "a" must set securityContext.capabilities.drop=["ALL"]; container "a" must not include "SYS_ADMIN" in securityContext.capabilities.add)',
      'runAsUser=0 (container "a" must not set runAsUser=0)',
    ]);
    // capabilities_restricted starts at v1.22 (before it, restricted has baseline's check); runAsUser at v1.23.
    assert.deepEqual(judge('restricted', spec, { version: 'v1.22' }), ['unrestricted capabilities (container "a" must set securityContext.capabilities.drop=["ALL"]; container "a" must not include "SYS_ADMIN" in securityContext.capabilities.add)']);
    assert.deepEqual(judge('restricted', spec, { version: 'v1.21' }), ['non-default capabilities (container "a" must not include "SYS_ADMIN" in securityContext.capabilities.add)']);
    // allowPrivilegeEscalation starts at v1.8, seccompProfile_restricted at v1.19.
    const bare = { containers: [{ name: 'a', securityContext: { runAsNonRoot: true } }] };
    assert.deepEqual(judge('restricted', bare, { version: 'v1.7' }), []);
    assert.deepEqual(judge('restricted', bare, { version: 'v1.18' }), ['allowPrivilegeEscalation != false (container "a" must set securityContext.allowPrivilegeEscalation=false)']);
  });

  it('from v1.25 Windows pods are exempt from the Linux-only restricted checks', () => {
    const spec = { os: { name: 'windows' }, securityContext: { runAsNonRoot: true }, containers: [{ name: 'a' }] };
    assert.deepEqual(judge('restricted', spec), []);
    assert.deepEqual(judge('restricted', spec, { version: 'v1.24' }), [
      'allowPrivilegeEscalation != false (container "a" must set securityContext.allowPrivilegeEscalation=false)',
      'unrestricted capabilities (container "a" must set securityContext.capabilities.drop=["ALL"])',
      'seccompProfile (pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    ]);
  });

  it('init, regular and ephemeral containers are all judged', () => {
    const spec = { initContainers: [{ name: 'i', securityContext: { privileged: true } }], containers: [{ name: 'c' }], ephemeralContainers: [{ name: 'e', securityContext: { privileged: true } }] };
    assert.deepEqual(judge('baseline', spec), ['privileged (containers "i", "e" must not set securityContext.privileged=true)']);
  });

  it('hostile shapes: non-object entries, null fields, prototype keys are read as absent or as data', () => {
    const spec = JSON.parse(
      '{"__proto__":{"hostNetwork":true},"securityContext":null,"containers":[null,1,"x",{"name":"a","securityContext":{"__proto__":{"privileged":true},"capabilities":null,"seLinuxOptions":null}}],"volumes":[{"name":"v","__proto__":{"hostPath":{}}}]}',
    ) as Record<string, unknown>;
    assert.deepEqual(judge('baseline', spec), []);
    assert.deepEqual(judge('restricted', spec).length, 5);
    // Names with quotes and non-ASCII are written verbatim inside the quotes, as Go does.
    assert.deepEqual(judge('baseline', { containers: [{ name: 'a"b\u00e9', securityContext: { privileged: true } }] }), ['privileged (container "a"b\u00e9" must not set securityContext.privileged=true)']);
  });
});
