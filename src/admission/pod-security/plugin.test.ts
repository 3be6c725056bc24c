import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { setFlavor } from '../../naming/index.js';
import { fixture, pod, R, type Fixture } from '../../testing/admission.js';
import type { AdmissionAttributes } from '../types.js';
import { parsePodSecurityConfig, PodSecurityConfigError } from './config.js';
import { PodSecurity } from './plugin.js';

setFlavor('orch');

const L = (mode: string): string => `pod-security.orch.io/${mode}`;
const DEPLOYMENTS = { group: 'apps', version: 'v1', resource: 'deployments' };

function forbiddenWith(message: string): (e: unknown) => boolean {
  return (e: unknown) => {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(e.code, 403);
    assert.equal(e.status.reason, 'Forbidden');
    assert.equal(e.message, message);
    return true;
  };
}

/** Admission attributes of a dry run, with the audit annotations and warnings it collects. */
function attrs(resource: AdmissionAttributes['resource'], object: KubeObject, over: Partial<AdmissionAttributes> = {}): AdmissionAttributes & { annotations: Record<string, string> } {
  const annotations: Record<string, string> = {};
  return {
    operation: 'CREATE',
    kind: { group: resource.group, version: 'v1', kind: resource.resource === 'pods' ? 'Pod' : resource.resource === 'namespaces' ? 'Namespace' : 'Deployment' },
    resource,
    subresource: '',
    namespace: 'locked',
    name: object.metadata?.name ?? '',
    object,
    user: { username: 'alice', groups: ['system:authenticated'] },
    dryRun: true,
    warnings: [],
    annotations,
    audit: { add: (k, v) => void (annotations[k] ??= v) },
    ...over,
  };
}

describe('PodSecurity admission', () => {
  let f: Fixture;
  /** The plugin alone, for admission attributes built by hand. */
  let psa: PodSecurity;
  before(async () => {
    f = await fixture();
    psa = new PodSecurity(f.plain);
    await f.plain.create(R.namespaces, '', { metadata: { name: 'locked', labels: { [L('enforce')]: 'baseline', [L('warn')]: 'restricted', [L('audit')]: 'restricted' } } });
    await f.plain.create(R.serviceaccounts, 'locked', { metadata: { name: 'default' } });
  });
  after(() => f.close());

  it('refuses a pod with an unsafe sysctl at enforce=baseline (it passed before: the check was missing)', async () => {
    const bad = pod('core', { securityContext: { sysctls: [{ name: 'kernel.core_pattern', value: '|/var/tmp/x' }] } });
    await assert.rejects(f.client.create(R.pods, 'locked', bad), forbiddenWith('pods "core" is forbidden: violates PodSecurity "baseline:latest": forbidden sysctls (kernel.core_pattern)'));
  });

  it('refuses each of the six baseline checks that were missing, with kube’s reason and detail', async () => {
    const cases: [Record<string, unknown>, Record<string, unknown>, string][] = [
      [{ securityContext: { seLinuxOptions: { type: 'spc_t' } } }, {}, 'seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: type "spc_t")'],
      [{ containers: [{ name: 'app', image: 'i', securityContext: { procMount: 'Unmasked' } }] }, {}, 'procMount (container "app" must not set securityContext.procMount to "Unmasked")'],
      [{}, { annotations: { 'container.apparmor.security.beta.orch.io/app': 'unconfined' } }, 'forbidden AppArmor profile (container.apparmor.security.beta.orch.io/app="unconfined")'],
      [{ securityContext: { seccompProfile: { type: 'Unconfined' } } }, {}, 'seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")'],
      [{ containers: [{ name: 'app', image: 'i', securityContext: { windowsOptions: { hostProcess: true } } }], hostNetwork: true }, {}, 'host namespaces (hostNetwork=true), hostProcess (container "app" must not set securityContext.windowsOptions.hostProcess=true)'],
      [{ securityContext: { sysctls: [{ name: 'net.ipv4.ip_forward', value: '1' }] } }, {}, 'forbidden sysctls (net.ipv4.ip_forward)'],
    ];
    for (const [spec, meta, detail] of cases) {
      await assert.rejects(f.client.create(R.pods, 'locked', pod('p', spec, meta)), forbiddenWith(`pods "p" is forbidden: violates PodSecurity "baseline:latest": ${detail}`), detail);
    }
    // The allowed values pass.
    const fine = pod('fine', {
      securityContext: { sysctls: [{ name: 'net.ipv4.ip_local_reserved_ports', value: '80' }], seLinuxOptions: { type: 'container_t', level: 's0:c1' }, seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' } },
      containers: [{ name: 'app', image: 'i', securityContext: { procMount: 'Default', windowsOptions: { hostProcess: false } } }],
    }, { annotations: { 'container.apparmor.security.beta.orch.io/app': 'localhost/mine' } });
    await f.client.create(R.pods, 'locked', fine);
  });

  it('warns and audits at the restricted level with the new checks listed in order', async () => {
    const a = attrs(R.pods, pod('w', { securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } } }));
    await psa.validate(a);
    const expected =
      'would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "app" must set securityContext.capabilities.drop=["ALL"])';
    assert.deepEqual(a.warnings, [expected]);
    assert.equal(a.annotations['pod-security.orch.io/audit-violations'], expected);
    assert.equal(a.annotations['pod-security.orch.io/enforce-policy'], 'baseline:latest');
  });

  it('a refused pod carries no warning; its audit annotation is still recorded', async () => {
    const a = attrs(R.pods, pod('r', { securityContext: { sysctls: [{ name: 'kernel.core_pattern', value: 'x' }] } }));
    await assert.rejects(psa.validate(a), ApiError);
    assert.deepEqual(a.warnings, []);
    assert.match(a.annotations['pod-security.orch.io/audit-violations'] ?? '', /^would violate PodSecurity "restricted:latest": forbidden sysctls \(kernel.core_pattern\), allowPrivilegeEscalation/);
  });

  it('judges ephemeral containers added through the subresource', async () => {
    const running = await f.client.create(R.pods, 'locked', pod('debugged'));
    (running.spec as Record<string, unknown>).ephemeralContainers = [{ name: 'x', image: 'busybox', securityContext: { privileged: true } }];
    await assert.rejects(
      f.client.update(R.pods, 'locked', running, 'ephemeralcontainers'),
      forbiddenWith('pods "debugged" is forbidden: violates PodSecurity "baseline:latest": privileged (container "x" must not set securityContext.privileged=true)'),
    );
    const old = pod('dbg', {});
    const next = pod('dbg', { ephemeralContainers: [{ name: 'x', image: 'busybox', securityContext: { privileged: true } }] });
    const a = attrs(R.pods, next, { operation: 'UPDATE', oldObject: old, subresource: 'ephemeralcontainers' });
    await assert.rejects(psa.validate(a), forbiddenWith('pods "dbg" is forbidden: violates PodSecurity "baseline:latest": privileged (container "x" must not set securityContext.privileged=true)'));
    // Status writes are not judged; updates that change no image are not judged again.
    await psa.validate(attrs(R.pods, next, { operation: 'UPDATE', oldObject: old, subresource: 'status' }));
    const tolerations = pod('dbg', { securityContext: { sysctls: [{ name: 'kernel.core_pattern', value: 'x' }] }, tolerations: [{ key: 'k', operator: 'Exists' }] });
    await psa.validate(attrs(R.pods, tolerations, { operation: 'UPDATE', oldObject: pod('dbg', { securityContext: { sysctls: [{ name: 'kernel.core_pattern', value: 'x' }] } }) }));
  });

  it('pinned versions: enforce-version chooses the checks and names the policy', async () => {
    await f.plain.create(R.namespaces, '', { metadata: { name: 'pinned', labels: { [L('enforce')]: 'restricted', [L('enforce-version')]: 'v1.22' } } });
    const spec = { securityContext: { runAsNonRoot: true, runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' } }, containers: [{ name: 'app', image: 'i', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }] };
    // runAsUser starts at v1.23: admitted at v1.22 (with the warning at the same level: none).
    const a = attrs(R.pods, pod('v', spec), { namespace: 'pinned' });
    await psa.validate(a);
    assert.deepEqual(a.warnings, []);
    assert.equal(a.annotations['pod-security.orch.io/enforce-policy'], 'restricted:v1.22');
    await f.plain.patch(R.namespaces, '', 'pinned', { metadata: { labels: { [L('enforce-version')]: 'latest' } } });
    await assert.rejects(psa.validate(attrs(R.pods, pod('v', spec), { namespace: 'pinned' })), forbiddenWith('pods "v" is forbidden: violates PodSecurity "restricted:latest": runAsUser=0 (pod must not set runAsUser=0)'));
  });

  it('unreadable labels: enforce fails closed at restricted, the error is audited; namespace writes with them are refused', async () => {
    await f.plain.create(R.namespaces, '', { metadata: { name: 'typo', labels: { [L('enforce')]: 'baseLine' } } });
    const a = attrs(R.pods, pod('t'), { namespace: 'typo' });
    await assert.rejects(psa.validate(a), (e: unknown) => e instanceof ApiError && /violates PodSecurity "restricted:latest": allowPrivilegeEscalation/.test(e.message));
    assert.equal(a.annotations['pod-security.orch.io/error'], 'Failed to parse policy: metadata.labels[pod-security.orch.io/enforce]: Invalid value: "baseLine": must be one of privileged, baseline, restricted');
    await assert.rejects(
      f.client.create(R.namespaces, '', { metadata: { name: 'bad', labels: { [L('enforce')]: 'strict', [L('warn-version')]: 'v2.0' } } }),
      (e: unknown) => {
        assert.ok(e instanceof ApiError);
        assert.equal(e.code, 422);
        assert.equal(
          e.message,
          'Namespace "bad" is invalid: [metadata.labels[pod-security.orch.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted, metadata.labels[pod-security.orch.io/warn-version]: Invalid value: "v2.0": must be "latest" or "v1.x"]',
        );
        return true;
      },
    );
    // An update that keeps the same bad label is let through (it was there before).
    await f.client.patch(R.namespaces, '', 'typo', { metadata: { annotations: { a: 'b' } } });
  });

  it('tightening a namespace’s enforce level warns about the pods already there', async () => {
    await f.plain.create(R.namespaces, '', { metadata: { name: 'grow' } });
    for (const name of ['b', 'a', 'c']) await f.plain.create(R.pods, 'grow', pod(name, { hostNetwork: true }));
    await f.plain.create(R.pods, 'grow', pod('z', { securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '1' }] } }));
    const old = await f.plain.get(R.namespaces, '', 'grow');
    const next = { ...old, metadata: { ...old.metadata, labels: { [L('enforce')]: 'baseline' } } };
    const a = attrs(R.namespaces, next, { operation: 'UPDATE', oldObject: old, namespace: 'grow', name: 'grow' });
    await psa.validate(a);
    assert.deepEqual(a.warnings, [
      'existing pods in namespace "grow" violate the new PodSecurity enforce level "baseline:latest"',
      'a (and 2 other pods): host namespaces',
      'z: forbidden sysctls',
    ]);
  });

  it('workload templates are warned about, never refused', async () => {
    const deployment: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'app', image: 'i', securityContext: { privileged: true } }] } } },
    };
    const a = attrs(DEPLOYMENTS, deployment);
    await psa.validate(a);
    assert.equal(a.warnings.length, 1);
    assert.match(a.warnings[0]!, /^would violate PodSecurity "restricted:latest": privileged \(container "app" must not set securityContext.privileged=true\), allowPrivilegeEscalation/);
    assert.match(a.annotations['pod-security.orch.io/audit-violations'] ?? '', /^would violate PodSecurity "restricted:latest": privileged/);
    assert.equal(a.annotations['pod-security.orch.io/enforce-policy'], undefined);
  });

  it('a namespace without labels is privileged', async () => {
    const a = attrs(R.pods, pod('anything', { hostNetwork: true }), { namespace: 'team' });
    await psa.validate(a);
    assert.equal(a.annotations['pod-security.orch.io/enforce-policy'], 'privileged:latest');
  });
});

describe('PodSecurityConfiguration', () => {
  setFlavor('orch');
  const G = 'pod-security.admission.config.orch.io/v1';

  it('defaults and exemptions apply; without labels the defaults rule', async () => {
    const config = parsePodSecurityConfig({
      apiVersion: G,
      kind: 'PodSecurityConfiguration',
      defaults: { enforce: 'baseline' },
      exemptions: { usernames: ['system:serviceaccount:ops:deployer'], namespaces: ['ops'], runtimeClasses: ['kata'] },
    });
    assert.deepEqual(config.defaults.enforce, { level: 'baseline', version: 'latest' });
    const f = await fixture({ namespace: 'plain' });
    try {
      const plugin = new PodSecurity(f.plain, config);
      const hostile = pod('h', { hostPID: true });
      await assert.rejects(plugin.validate(attrs(R.pods, hostile, { namespace: 'plain' })), forbiddenWith('pods "h" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostPID=true)'));
      const byUser = attrs(R.pods, hostile, { namespace: 'plain', user: { username: 'system:serviceaccount:ops:deployer', groups: [] } });
      await plugin.validate(byUser);
      assert.equal(byUser.annotations['pod-security.orch.io/exempt'], 'user');
      const byNs = attrs(R.pods, hostile, { namespace: 'ops' });
      await plugin.validate(byNs);
      assert.equal(byNs.annotations['pod-security.orch.io/exempt'], 'namespace');
      const byClass = attrs(R.pods, pod('k', { hostPID: true, runtimeClassName: 'kata' }), { namespace: 'plain' });
      await plugin.validate(byClass);
      assert.equal(byClass.annotations['pod-security.orch.io/exempt'], 'runtimeClass');
      // Labelling an exempt namespace says the labels will be ignored.
      const ns = attrs(R.namespaces, { metadata: { name: 'ops', labels: { [L('enforce')]: 'restricted' } } }, { namespace: 'ops', name: 'ops' });
      await plugin.validate(ns);
      assert.deepEqual(ns.warnings, ['namespace "ops" is exempt from Pod Security, and the policy (enforce=restricted:latest) will be ignored']);
    } finally {
      await f.close();
    }
  });

  it('refuses a bad configuration at start, naming every problem', () => {
    assert.throws(() => parsePodSecurityConfig({ apiVersion: 'v1', kind: 'Pod' }), PodSecurityConfigError);
    assert.throws(
      () => parsePodSecurityConfig({ apiVersion: G, kind: 'PodSecurityConfiguration', defaults: { audit: 'loud', 'warn-version': 'v1.02' }, exemptions: { namespaces: ['Bad_NS', 'ok', 'ok'], usernames: [''] } }),
      (e: unknown) => {
        assert.ok(e instanceof PodSecurityConfigError);
        assert.equal(
          e.message,
          'couldn\'t init admission plugin "PodSecurity" from --admission-control-config-file: [defaults.warn-version: Invalid value: "v1.02": must be "latest" or "v1.x", defaults.audit: Invalid value: "loud": must be one of privileged, baseline, restricted, exemptions.namespaces[0]: Invalid value: "Bad_NS": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\'), exemptions.namespaces[2]: Duplicate value: "ok", exemptions.usernames[0]: Invalid value: "": username must not be empty]',
        );
        return true;
      },
    );
    assert.throws(() => parsePodSecurityConfig({ apiVersion: G, kind: 'PodSecurityConfiguration', exemptions: { usernames: 'root' } }), /exemptions.usernames: must be a list of strings/);
  });
});
