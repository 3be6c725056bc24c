import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { definitionOf, strategyOf } from '../../testing/apis.js';
import { defaultPullPolicy } from './podspec.js';
import { podQOSClass, prepareEphemeralContainersUpdate, validateEphemeralContainersUpdate } from './pod.js';

const pods = strategyOf('', 'pods');
const rendered = (errs: FieldError[]): string[] => errs.map((e) => `${e.field}: ${e.detail}`);

function pod(spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec };
}

function defaulted(spec: Record<string, unknown>): KubeObject {
  const p = pod(spec);
  pods.defaults(p);
  return p;
}

describe('pod defaults', () => {
  it('fills the PodSpec and container defaults of v1', () => {
    const p = defaulted({ containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } }] });
    const spec = p.spec as Record<string, unknown>;
    assert.equal(spec.restartPolicy, 'Always');
    assert.equal(spec.dnsPolicy, 'ClusterFirst');
    assert.equal(spec.terminationGracePeriodSeconds, 30);
    assert.equal(spec.schedulerName, 'default-scheduler');
    assert.deepEqual(spec.securityContext, {});
    assert.equal(spec.enableServiceLinks, true);
    assert.deepEqual((spec.containers as unknown[])[0], {
      name: 'web',
      image: 'nginx',
      ports: [{ containerPort: 80, protocol: 'TCP' }],
      resources: { limits: { cpu: '1' }, requests: { cpu: '1' } },
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      imagePullPolicy: 'Always',
    });
  });

  it('keeps what the client set', () => {
    const p = defaulted({ restartPolicy: 'Never', terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: 'x:1', imagePullPolicy: 'Never' }] });
    const spec = p.spec as Record<string, unknown>;
    assert.equal(spec.restartPolicy, 'Never');
    assert.equal(spec.terminationGracePeriodSeconds, 0);
    assert.equal((spec.containers as Record<string, unknown>[])[0].imagePullPolicy, 'Never');
  });

  it('chooses the image pull policy from the tag', () => {
    assert.equal(defaultPullPolicy('nginx'), 'Always');
    assert.equal(defaultPullPolicy('nginx:latest'), 'Always');
    assert.equal(defaultPullPolicy('nginx:1.25'), 'IfNotPresent');
    assert.equal(defaultPullPolicy('registry:5000/team/app'), 'Always');
    assert.equal(defaultPullPolicy('registry:5000/team/app:v2'), 'IfNotPresent');
    assert.equal(defaultPullPolicy('nginx@sha256:abc'), 'IfNotPresent');
  });

  it('defaults probes, volumes and host ports', () => {
    const p = defaulted({
      hostNetwork: true,
      containers: [{ name: 'c', image: 'x:1', ports: [{ containerPort: 8080 }], livenessProbe: { httpGet: { port: 80 } } }],
      volumes: [{ name: 'v' }, { name: 's', secret: { secretName: 'x' } }],
    });
    const spec = p.spec as Record<string, unknown>;
    const c = (spec.containers as Record<string, unknown>[])[0];
    assert.deepEqual(c.livenessProbe, { httpGet: { port: 80, scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    assert.deepEqual(c.ports, [{ containerPort: 8080, protocol: 'TCP', hostPort: 8080 }]);
    assert.deepEqual(spec.volumes, [{ name: 'v', emptyDir: {} }, { name: 's', secret: { secretName: 'x', defaultMode: 420 } }]);
  });

  it('starts Pending with its QoS class', () => {
    const p = defaulted({ containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: '500m', memory: '1Gi' } } }] });
    p.status = { phase: 'Running', podIP: '1.2.3.4' };
    pods.prepareForCreate(p);
    assert.deepEqual(p.status, { phase: 'Pending', qosClass: 'Guaranteed' });
    const gated = defaulted({ schedulingGates: [{ name: 'wait' }], containers: [{ name: 'c', image: 'x' }] });
    pods.prepareForCreate(gated);
    assert.deepEqual(gated.status, {
      phase: 'Pending',
      qosClass: 'BestEffort',
      conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' }],
    });
    assert.equal(podQOSClass({ containers: [{ name: 'c' }] }), 'BestEffort');
    assert.equal(podQOSClass({ containers: [{ resources: { requests: { cpu: '100m' } } }] }), 'Burstable');
    assert.equal(podQOSClass({ containers: [{ resources: { requests: { cpu: '0.5', memory: '1Gi' }, limits: { cpu: '500m', memory: '1024Mi' } } }] }), 'Guaranteed');
  });
});

describe('pod validation', () => {
  it('accepts a minimal defaulted pod', () => {
    assert.deepEqual(pods.validate(defaulted({ containers: [{ name: 'web', image: 'nginx' }] })), []);
  });

  it('requires containers, names and images', () => {
    assert.deepEqual(rendered(pods.validate(defaulted({}))), ['spec.containers: Required value']);
    assert.deepEqual(rendered(pods.validate(defaulted({ containers: [{ image: 'x' }, { name: 'b' }] }))), [
      'spec.containers[0].name: Required value',
      'spec.containers[1].image: Required value',
    ]);
  });

  it('reports duplicate and malformed names, bad ports, policies and unknown volume mounts', () => {
    const p = defaulted({
      restartPolicy: 'Sometimes',
      containers: [
        { name: 'web', image: 'x', ports: [{ containerPort: 70000 }], volumeMounts: [{ name: 'data', mountPath: '/d' }] },
        { name: 'web', image: 'y' },
        { name: 'Bad_Name', image: 'z' },
      ],
    });
    const errs = rendered(pods.validate(p));
    assert.ok(errs.includes('spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive'), errs.join('\n'));
    assert.ok(errs.includes('spec.containers[0].volumeMounts[0].name: Not found: "data"'));
    assert.ok(errs.includes('spec.containers[1].name: Duplicate value: "web"'));
    assert.ok(errs.some((e) => e.startsWith('spec.containers[2].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label')));
    assert.ok(errs.includes('spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'));
  });

  it('allows image changes on update but no other spec change', () => {
    const old = defaulted({ containers: [{ name: 'web', image: 'nginx:1' }] });
    const imageOnly = structuredClone(old);
    ((imageOnly.spec as Record<string, unknown>).containers as Record<string, unknown>[])[0].image = 'nginx:2';
    assert.deepEqual(pods.validateUpdate(imageOnly, old), []);
    const other = structuredClone(old);
    (other.spec as Record<string, unknown>).restartPolicy = 'Never';
    const errs = pods.validateUpdate(other, old);
    assert.equal(errs.length, 1);
    assert.equal(errs[0].field, 'spec');
    assert.match(errs[0].detail, /^Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`/);
    const tolerations = structuredClone(old);
    (tolerations.spec as Record<string, unknown>).tolerations = [{ key: 'k', operator: 'Exists' }];
    assert.deepEqual(pods.validateUpdate(tolerations, old), []);
  });
});

describe('port names', () => {
  it('follow the IANA service name rules', () => {
    const p = defaulted({ containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 80, name: 'http' }, { containerPort: 81, name: '-a--b-' }, { containerPort: 82, name: '8080' }] }] });
    assert.deepEqual(rendered(pods.validate(p)), [
      'spec.containers[0].ports[1].name: Invalid value: "-a--b-": must not contain consecutive hyphens (--)',
      'spec.containers[0].ports[1].name: Invalid value: "-a--b-": must not begin or end with a hyphen (-)',
      'spec.containers[0].ports[2].name: Invalid value: "8080": must contain at least one letter (a-z)',
    ]);
  });
});

describe('ephemeral containers', () => {
  it('change only spec.ephemeralContainers and may only be added', () => {
    const old = defaulted({ containers: [{ name: 'web', image: 'nginx' }] });
    old.metadata = { ...old.metadata, labels: { a: '1' }, resourceVersion: '5', uid: 'u' };
    const now: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'default', labels: { a: '2' }, resourceVersion: '5', uid: 'u' },
      spec: { containers: [], ephemeralContainers: [{ name: 'debug', image: 'busybox' }] },
    };
    prepareEphemeralContainersUpdate(now, old);
    assert.deepEqual(now.metadata?.labels, { a: '1' });
    assert.deepEqual((now.spec as Record<string, unknown>).containers, (old.spec as Record<string, unknown>).containers);
    assert.deepEqual((now.spec as Record<string, unknown>).ephemeralContainers, [{ name: 'debug', image: 'busybox' }]);
    assert.deepEqual(validateEphemeralContainersUpdate(now, old), []);
    const changed = structuredClone(now);
    ((changed.spec as Record<string, unknown>).ephemeralContainers as Record<string, unknown>[])[0].image = 'alpine';
    assert.deepEqual(rendered(validateEphemeralContainersUpdate(changed, now)), ['spec.ephemeralContainers: Forbidden: existing ephemeral containers "debug" may not be changed\n']);
    assert.deepEqual(rendered(validateEphemeralContainersUpdate(old, now)), ['spec.ephemeralContainers: Forbidden: existing ephemeral containers "debug" may not be removed\n']);
  });

  it('may not be set on create', () => {
    const p = defaulted({ containers: [{ name: 'web', image: 'nginx' }], ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] });
    assert.deepEqual(rendered(pods.validate(p)), ['spec.ephemeralContainers: Forbidden: cannot be set on create']);
  });

  const base = { containers: [{ name: 'web', image: 'nginx' }], initContainers: [{ name: 'init', image: 'busybox' }] };
  const cases: { name: string; ec: Record<string, unknown>; want: string[] }[] = [
    { name: 'a plain debug container', ec: { name: 'dbg', image: 'busybox', stdin: true, tty: true, targetContainerName: 'web' }, want: [] },
    { name: 'an empty resources struct is no resources', ec: { name: 'dbg', image: 'busybox', resources: {} }, want: [] },
    { name: 'ports', ec: { name: 'dbg', image: 'busybox', ports: [{ containerPort: 80 }] }, want: ['spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container'] },
    {
      name: 'resources',
      ec: { name: 'dbg', image: 'busybox', resources: { limits: { cpu: '1' } } },
      want: ['spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container'],
    },
    {
      name: 'probes and lifecycle',
      ec: { name: 'dbg', image: 'busybox', readinessProbe: { exec: { command: ['true'] } }, lifecycle: {} },
      want: [
        'spec.ephemeralContainers[0].readinessProbe: Forbidden: cannot be set for an Ephemeral Container',
        'spec.ephemeralContainers[0].lifecycle: Forbidden: cannot be set for an Ephemeral Container',
      ],
    },
    { name: 'a name taken by a container', ec: { name: 'web', image: 'busybox' }, want: ['spec.ephemeralContainers[0].name: Duplicate value: "web"'] },
    { name: 'a name taken by an init container', ec: { name: 'init', image: 'busybox' }, want: ['spec.ephemeralContainers[0].name: Duplicate value: "init"'] },
    { name: 'an unknown target', ec: { name: 'dbg', image: 'busybox', targetContainerName: 'nope' }, want: ['spec.ephemeralContainers[0].targetContainerName: Not found: "nope"'] },
    { name: 'no image', ec: { name: 'dbg' }, want: ['spec.ephemeralContainers[0].image: Required value'] },
    {
      name: 'a subPath mount',
      ec: { name: 'dbg', image: 'busybox', volumeMounts: [{ name: 'v', mountPath: '/v', subPath: 'x' }] },
      want: ['spec.ephemeralContainers[0].volumeMounts[0].subPath: Forbidden: cannot be set for an Ephemeral Container'],
    },
  ];
  for (const c of cases) {
    it(`through the subresource: ${c.name}`, () => {
      const old = defaulted({ ...structuredClone(base), volumes: [{ name: 'v', emptyDir: {} }] });
      const now = structuredClone(old);
      (now.spec as Record<string, unknown>).ephemeralContainers = [c.ec];
      // As the Store does: defaults, then the subresource's preparation.
      pods.defaults(now);
      const serving = definitionOf('', 'pods').subresources.find((s) => s.name === 'ephemeralcontainers')?.serving;
      assert.ok(serving?.by === 'part' && serving.part.validateUpdate);
      serving.part.prepareForUpdate(now, old, new Date());
      assert.deepEqual(rendered(serving.part.validateUpdate(now, old)), c.want);
    });
  }
});
