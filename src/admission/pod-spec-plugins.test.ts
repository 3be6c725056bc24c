// AlwaysPullImages, SecurityContextDeny, LimitPodHardAntiAffinityTopology and
// ExtendedResourceToleration on admission attributes built by hand.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import { defaultFeatureGate } from '../apimachinery/features.js';
import type { KubeObject } from '../apimachinery/types.js';
import { alwaysPullImages, extendedResourceToleration, isExtendedResourceName, limitPodHardAntiAffinityTopology, securityContextDeny } from './pod-spec-plugins.js';
import type { AdmissionAttributes, AdmissionOperation } from './types.js';

export function podAttrs(object: KubeObject | undefined, opts: { operation?: AdmissionOperation; old?: KubeObject; subresource?: string; resource?: string; namespace?: string; name?: string } = {}): AdmissionAttributes {
  return {
    operation: opts.operation ?? 'CREATE',
    object,
    oldObject: opts.old,
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: opts.resource ?? 'pods' },
    subresource: opts.subresource ?? '',
    namespace: opts.namespace ?? 'team',
    name: opts.name ?? object?.metadata?.name ?? '',
    user: { username: 'alice', groups: ['system:authenticated'] },
    dryRun: false,
    warnings: [],
  };
}

const pod = (spec: Record<string, unknown>, name = 'p'): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec });
const c = (name: string, extra: Record<string, unknown> = {}) => ({ name, image: `${name}:1`, ...extra });

async function refusal(p: Promise<void>, what = ""): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    return e;
  }
  assert.fail(`expected a refusal: ${what}`);
}

test('AlwaysPullImages sets Always on init, regular and ephemeral containers, on create and on updates that bring new images', async () => {
  const p = pod({ initContainers: [c('i')], containers: [c('a', { imagePullPolicy: 'IfNotPresent' }), c('b', { imagePullPolicy: 'Never' })], ephemeralContainers: [c('e')] });
  await alwaysPullImages.admit!(podAttrs(p));
  const spec = p.spec as Record<string, Record<string, unknown>[]>;
  for (const list of ['initContainers', 'containers', 'ephemeralContainers']) for (const x of spec[list]!) assert.equal(x.imagePullPolicy, 'Always', list);
  await alwaysPullImages.validate!(podAttrs(p));

  // An update with no new image is left alone (the policy is immutable on a running pod).
  const old = pod({ containers: [c('a', { imagePullPolicy: 'IfNotPresent' })] });
  const same = pod({ containers: [c('a', { imagePullPolicy: 'IfNotPresent' })] });
  await alwaysPullImages.admit!(podAttrs(same, { operation: 'UPDATE', old }));
  assert.equal((same.spec as { containers: { imagePullPolicy: string }[] }).containers[0]!.imagePullPolicy, 'IfNotPresent');
  await alwaysPullImages.validate!(podAttrs(same, { operation: 'UPDATE', old }));
  // A new image on update is pulled too.
  const changed = pod({ containers: [{ name: 'a', image: 'a:2', imagePullPolicy: 'IfNotPresent' }] });
  await alwaysPullImages.admit!(podAttrs(changed, { operation: 'UPDATE', old }));
  assert.equal((changed.spec as { containers: { imagePullPolicy: string }[] }).containers[0]!.imagePullPolicy, 'Always');

  // Subresources and other resources are not its business.
  const status = pod({ containers: [c('a', { imagePullPolicy: 'Never' })] });
  await alwaysPullImages.admit!(podAttrs(status, { subresource: 'status', operation: 'UPDATE', old: status }));
  await alwaysPullImages.validate!(podAttrs(status, { resource: 'podtemplates' }));
  assert.equal((status.spec as { containers: { imagePullPolicy: string }[] }).containers[0]!.imagePullPolicy, 'Never');
});

test('AlwaysPullImages validation refuses a policy a later plugin changed back, with kube field errors', async () => {
  const one = await refusal(alwaysPullImages.validate!(podAttrs(pod({ containers: [c('a', { imagePullPolicy: 'IfNotPresent' })] }))));
  assert.equal(one.code, 500);
  assert.equal(one.message, 'pods "p" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always"');
  const two = await refusal(alwaysPullImages.validate!(podAttrs(pod({ initContainers: [c('i')], containers: [c('a', { imagePullPolicy: 'Never' })] }, ''))));
  assert.equal(
    two.message,
    '[pods "Unknown" is forbidden: spec.initContainers[0].imagePullPolicy: Unsupported value: "": supported values: "Always", pods "Unknown" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "Never": supported values: "Always"]',
  );
});

test('SecurityContextDeny needs its feature gate, then refuses the fields kube lists, in kube order and words', async () => {
  assert.throws(() => securityContextDeny(defaultFeatureGate()), /SecurityContextDeny admission controller is an alpha feature, planned to be removed, and requires the SecurityContextDeny feature gate to be enabled/);
  const gate = defaultFeatureGate();
  gate.set('SecurityContextDeny=true');
  const plugin = securityContextDeny(gate);
  const cases: [string, Record<string, unknown>, string | undefined][] = [
    ['nothing set', { containers: [c('a')] }, undefined],
    ['pod supplementalGroups', { securityContext: { supplementalGroups: [1] }, containers: [c('a')] }, 'pod.Spec.SecurityContext.SupplementalGroups is forbidden'],
    ['empty supplementalGroups is still set', { securityContext: { supplementalGroups: [] }, containers: [c('a')] }, 'pod.Spec.SecurityContext.SupplementalGroups is forbidden'],
    ['pod seLinuxOptions', { securityContext: { seLinuxOptions: { level: 's0' } }, containers: [c('a')] }, 'pod.Spec.SecurityContext.SELinuxOptions is forbidden'],
    ['pod runAsUser', { securityContext: { runAsUser: 0 }, containers: [c('a')] }, 'pod.Spec.SecurityContext.RunAsUser is forbidden'],
    ['pod fsGroup', { securityContext: { fsGroup: 2000 }, containers: [c('a')] }, 'pod.Spec.SecurityContext.FSGroup is forbidden'],
    ['pod runAsNonRoot is allowed', { securityContext: { runAsNonRoot: true }, containers: [c('a')] }, undefined],
    ['init container runAsUser', { initContainers: [c('i', { securityContext: { runAsUser: 1 } })], containers: [c('a')] }, 'SecurityContext.RunAsUser is forbidden'],
    ['container seLinuxOptions', { containers: [c('a', { securityContext: { seLinuxOptions: {} } })] }, 'SecurityContext.SELinuxOptions is forbidden'],
    ['container privileged is not its business', { containers: [c('a', { securityContext: { privileged: true } })] }, undefined],
  ];
  for (const [name, spec, reason] of cases) {
    const p = plugin.validate!(podAttrs(pod(spec)));
    if (reason === undefined) await p;
    else {
      const e = await refusal(p, name);
      assert.equal(e.code, 403, name);
      assert.equal(e.message, `pods "p" is forbidden: ${reason}`, name);
    }
  }
  // A pod named only by generateName is named "" as kube names it.
  const e = await refusal(plugin.validate!(podAttrs({ metadata: { generateName: 'x-' }, spec: { securityContext: { fsGroup: 1 } } })));
  assert.equal(e.message, 'pods "" is forbidden: pod.Spec.SecurityContext.FSGroup is forbidden');
});

test('LimitPodHardAntiAffinityTopology allows only the hostname key in required anti-affinity terms', async () => {
  const term = (topologyKey?: string) => ({ labelSelector: { matchLabels: { app: 'x' } }, ...(topologyKey === undefined ? {} : { topologyKey }) });
  const spec = (required: unknown[], preferred: unknown[] = []) => ({
    containers: [c('a')],
    affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: required, preferredDuringSchedulingIgnoredDuringExecution: preferred } },
  });
  const cases: [string, Record<string, unknown>, string | undefined][] = [
    ['no affinity', { containers: [c('a')] }, undefined],
    ['hostname', spec([term('orch.io/hostname')]), undefined],
    ['zone', spec([term('orch.io/hostname'), term('topology.orch.io/zone')]), 'topology.orch.io/zone'],
    ['empty key', spec([term()]), ''],
    ['preferred terms are free', spec([], [{ weight: 1, podAffinityTerm: term('rack') }]), undefined],
    ['upstream spelling is not this flavor', spec([term('kubernetes.io/hostname')]), 'kubernetes.io/hostname'],
  ];
  for (const [name, s, bad] of cases) {
    const p = limitPodHardAntiAffinityTopology.validate!(podAttrs(pod(s)));
    if (bad === undefined) await p;
    else {
      const e = await refusal(p, name);
      assert.equal(e.code, 403, name);
      assert.equal(e.message, `pods "p" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey ${bad} but only key orch.io/hostname is allowed`, name);
    }
  }
});

test('ExtendedResourceToleration adds one sorted NoSchedule toleration per extended resource requested', async () => {
  const table: [string, boolean][] = [
    ['example.com/gpu', true],
    ['cpu', false],
    ['orch.io/gpu', false],
    ['sub.orch.io/thing', false],
    ['requests.example.com/x', false],
    ['example.com/' + 'x'.repeat(64), false],
    ['Example.com/gpu', false],
    ['__proto__/x', false],
  ];
  for (const [name, want] of table) assert.equal(isExtendedResourceName(name), want, name);

  const p = pod({
    initContainers: [c('i', { resources: { requests: { 'example.com/fpga': '1' } } })],
    containers: [c('a', { resources: { requests: JSON.parse('{"cpu":"1","example.com/gpu":"2","__proto__":"1"}') as Record<string, string>, limits: { 'example.com/limited': '1' } } })],
    tolerations: [{ key: 'example.com/gpu', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 5 }, { key: 'other', operator: 'Equal', value: 'v' }],
  });
  await extendedResourceToleration.admit!(podAttrs(p));
  assert.deepEqual((p.spec as Record<string, unknown>).tolerations, [
    { key: 'example.com/gpu', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'other', operator: 'Equal', value: 'v' },
    { key: 'example.com/fpga', operator: 'Exists', effect: 'NoSchedule' },
  ]);
  const plain = pod({ containers: [c('a', { resources: { requests: { cpu: '1' } } })] });
  await extendedResourceToleration.admit!(podAttrs(plain));
  assert.equal((plain.spec as Record<string, unknown>).tolerations, undefined);
});
