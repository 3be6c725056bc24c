import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../apimachinery/types.js';
import type { TableConvertor } from '../rest/index.js';
import { builtinResourceDefinitions } from './definitions.js';
import { defaultTableConvertor, humanDuration } from './table.js';

const NOW = new Date('2024-05-01T12:00:00Z');
const ago = (seconds: number): string => new Date(NOW.getTime() - seconds * 1000).toISOString();

const defs = builtinResourceDefinitions({ runtimeConfig: 'api/all=true' });
function tableOf(group: string, resource: string, version?: string): TableConvertor {
  const d = defs.find((x) => x.group === group && x.resource === resource && (!version || x.version === version));
  assert.ok(d?.strategy, `${group}/${resource}`);
  return d.strategy.table;
}

describe('humanDuration', () => {
  const cases: [number, string][] = [
    [-5, '<invalid>'],
    [-1, '0s'],
    [0, '0s'],
    [59, '59s'],
    [119, '119s'],
    [120, '2m'],
    [5 * 60, '5m'],
    [5 * 60 + 7, '5m7s'],
    [10 * 60 + 30, '10m'],
    [179 * 60, '179m'],
    [3 * 3600 + 2 * 60, '3h2m'],
    [7 * 3600, '7h'],
    [47 * 3600, '47h'],
    [2 * 86400, '2d'],
    [2 * 86400 + 5 * 3600, '2d5h'],
    [30 * 86400, '30d'],
    [(365 * 2 + 3) * 86400, '2y3d'],
    [365 * 9 * 86400, '9y'],
  ];
  for (const [s, want] of cases) it(`${s}s is ${want}`, () => assert.equal(humanDuration(s * 1000), want));
});

describe('defaultTableConvertor', () => {
  it('has Name and Created At', () => {
    assert.deepEqual(
      defaultTableConvertor.columns.map((c) => [c.name, c.type, c.format, c.priority]),
      [
        ['Name', 'string', 'name', 0],
        ['Created At', 'date', '', 0],
      ],
    );
    assert.deepEqual(defaultTableConvertor.cells({ metadata: { name: 'x', creationTimestamp: '2024-01-02T03:04:05Z' } }, NOW), ['x', '2024-01-02T03:04:05Z']);
    assert.deepEqual(defaultTableConvertor.cells({ metadata: { name: 'y' } }, NOW), ['y', null]);
  });

  it('describes Created At as ObjectMeta describes creationTimestamp, for every kind that shows it', () => {
    for (const d of defs) {
      for (const c of d.strategy?.table.columns ?? []) {
        if (c.name === 'Created At') assert.deepEqual(c, defaultTableConvertor.columns[1], `${d.resource}.${d.group}`);
      }
    }
    assert.match(defaultTableConvertor.columns[1]!.description, /^CreationTimestamp is a timestamp .* Null for lists\.$/s);
  });

  it('is used for kinds without columns of their own', () => {
    assert.equal(tableOf('apiextensions.orch.io', 'customresourcedefinitions'), defaultTableConvertor);
  });
});

describe('columns as kubectl shows them', () => {
  // name:type, `*` for the -o wide ones.
  const expected: [string, string, string[]][] = [
    ['', 'pods', ['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP*', 'Node*', 'Nominated Node*', 'Readiness Gates*']],
    ['', 'nodes', ['Name', 'Status', 'Roles', 'Age', 'Version', 'Internal-IP*', 'External-IP*', 'OS-Image*', 'Kernel-Version*', 'Container-Runtime*']],
    ['', 'namespaces', ['Name', 'Status', 'Age']],
    ['', 'services', ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector*']],
    ['apps', 'deployments', ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers*', 'Images*', 'Selector*']],
    ['apps', 'replicasets', ['Name', 'Desired:integer', 'Current:integer', 'Ready:integer', 'Age', 'Containers*', 'Images*', 'Selector*']],
    ['apps', 'statefulsets', ['Name', 'Ready', 'Age', 'Containers*', 'Images*']],
    ['apps', 'daemonsets', ['Name', 'Desired:integer', 'Current:integer', 'Ready:integer', 'Up-to-date:integer', 'Available:integer', 'Node Selector', 'Age', 'Containers*', 'Images*', 'Selector*']],
    ['batch', 'jobs', ['Name', 'Completions', 'Duration', 'Age', 'Containers*', 'Images*', 'Selector*']],
    ['batch', 'cronjobs', ['Name', 'Schedule', 'Suspend:boolean', 'Active:integer', 'Last Schedule', 'Age', 'Containers*', 'Images*', 'Selector*']],
    ['', 'configmaps', ['Name', 'Data', 'Age']],
    ['', 'secrets', ['Name', 'Type', 'Data', 'Age']],
    ['', 'serviceaccounts', ['Name', 'Secrets', 'Age']],
    ['', 'events', ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject*', 'Source*', 'Message', 'First Seen*', 'Count*', 'Name*']],
    ['events.orch.io', 'events', ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject*', 'Source*', 'Message', 'First Seen*', 'Count*', 'Name*']],
    ['apiextensions.orch.io', 'customresourcedefinitions', ['Name', 'Created At:date']],
    ['rbac.authorization.orch.io', 'roles', ['Name', 'Created At:date']],
    ['rbac.authorization.orch.io', 'clusterroles', ['Name', 'Created At:date']],
    ['', 'limitranges', ['Name', 'Created At:date']],
    ['apiregistration.orch.io', 'apiservices', ['Name', 'Service', 'Available', 'Age']],
  ];
  for (const [group, resource, cols] of expected) {
    it(`${resource}.${group}`, () => {
      const t = tableOf(group, resource);
      const got = t.columns.map((c) => `${c.name}${c.type === 'string' ? '' : `:${c.type}`}${c.priority === 1 ? '*' : ''}`);
      assert.deepEqual(got, cols);
      assert.equal(t.columns[cols.indexOf('Name')]?.format ?? 'name', 'name');
    });
  }

  it('every stored kind gives one cell per column, even for an empty object', () => {
    for (const d of defs) {
      if (!d.strategy) continue;
      const t = d.strategy.table;
      for (const o of [{}, { metadata: { name: 'x', creationTimestamp: ago(60) } }] as KubeObject[]) {
        assert.equal(t.cells(o, NOW).length, t.columns.length, `${d.resource}.${d.group}/${d.version}`);
      }
    }
  });
});

describe('cells', () => {
  it('pods: ready, status, restarts with the last restart, wide columns', () => {
    const pod = {
      metadata: { name: 'web', creationTimestamp: ago(5 * 60) },
      spec: { nodeName: 'n1', containers: [{ name: 'a' }, { name: 'b' }], readinessGates: [{ conditionType: 'x/ready' }] },
      status: {
        phase: 'Running',
        podIPs: [{ ip: '10.0.0.5' }],
        conditions: [{ type: 'x/ready', status: 'True' }],
        containerStatuses: [
          { name: 'a', ready: true, restartCount: 2, state: { running: {} }, lastState: { terminated: { finishedAt: ago(120) } } },
          { name: 'b', ready: false, restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
      },
    };
    assert.deepEqual(tableOf('', 'pods').cells(pod, NOW), ['web', '1/2', 'CrashLoopBackOff', '3 (2m ago)', '5m', '10.0.0.5', 'n1', '<none>', '1/1']);
  });

  it('pods: pending, init containers, completed and terminating', () => {
    const t = tableOf('', 'pods');
    const base = { metadata: { name: 'p', creationTimestamp: ago(10) }, spec: { containers: [{ name: 'a' }], initContainers: [{ name: 'i1' }, { name: 'i2' }] } };
    assert.deepEqual(t.cells({ ...base, status: { phase: 'Pending' } }, NOW).slice(0, 4), ['p', '0/1', 'Pending', '0']);
    const init = { ...base, status: { phase: 'Pending', initContainerStatuses: [{ state: { terminated: { exitCode: 0 } } }, { state: { running: {} } }] } };
    assert.equal(t.cells(init, NOW)[2], 'Init:1/2');
    const failed = { ...base, status: { phase: 'Pending', initContainerStatuses: [{ state: { terminated: { exitCode: 3 } } }] } };
    assert.equal(t.cells(failed, NOW)[2], 'Init:ExitCode:3');
    const done = { ...base, spec: { containers: [{ name: 'a' }] }, status: { phase: 'Succeeded', containerStatuses: [{ state: { terminated: { exitCode: 0, reason: 'Completed' } } }] } };
    assert.equal(t.cells(done, NOW)[2], 'Completed');
    const terminating = { ...base, metadata: { ...base.metadata, deletionTimestamp: ago(1) }, status: { phase: 'Running' } };
    assert.equal(t.cells(terminating, NOW)[2], 'Terminating');
  });

  it('nodes', () => {
    const node = {
      metadata: { name: 'n1', creationTimestamp: ago(3 * 86400), labels: { 'node-role.orch.io/control-plane': '', 'node-role.orch.io/worker': '' } },
      spec: { unschedulable: true },
      status: {
        conditions: [{ type: 'Ready', status: 'True' }],
        addresses: [{ type: 'InternalIP', address: '192.168.1.2' }],
        nodeInfo: { kubeletVersion: 'v1.27.3', osImage: 'Linux', kernelVersion: '6.1', containerRuntimeVersion: 'containerd://1.7' },
      },
    };
    assert.deepEqual(tableOf('', 'nodes').cells(node, NOW), ['n1', 'Ready,SchedulingDisabled', 'control-plane,worker', '3d', 'v1.27.3', '192.168.1.2', '<none>', 'Linux', '6.1', 'containerd://1.7']);
    assert.equal(tableOf('', 'nodes').cells({ metadata: { name: 'x' } }, NOW)[1], 'Unknown');
  });

  it('namespaces, configmaps, secrets, service accounts', () => {
    assert.deepEqual(tableOf('', 'namespaces').cells({ metadata: { name: 'ns', creationTimestamp: ago(3 * 3600 + 120) }, status: { phase: 'Active' } }, NOW), ['ns', 'Active', '3h2m']);
    assert.deepEqual(tableOf('', 'configmaps').cells({ metadata: { name: 'c', creationTimestamp: ago(30) }, data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }, NOW), ['c', 3, '30s']);
    assert.deepEqual(tableOf('', 'secrets').cells({ metadata: { name: 's', creationTimestamp: ago(30) }, type: 'Opaque', data: { a: 'YQ==' } }, NOW), ['s', 'Opaque', 1, '30s']);
    assert.deepEqual(tableOf('', 'serviceaccounts').cells({ metadata: { name: 'default', creationTimestamp: ago(30) } }, NOW), ['default', 0, '30s']);
  });

  it('services of each type', () => {
    const t = tableOf('', 'services');
    const svc = (spec: object, status: object = {}): KubeObject => ({ metadata: { name: 's', creationTimestamp: ago(60) }, spec, status });
    assert.deepEqual(
      t.cells(svc({ type: 'ClusterIP', clusterIP: '10.96.0.10', ports: [{ port: 80, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }], selector: { b: '2', a: '1' } }), NOW),
      ['s', 'ClusterIP', '10.96.0.10', '<none>', '80/TCP,53/UDP', '60s', 'a=1,b=2'],
    );
    assert.deepEqual(t.cells(svc({ type: 'NodePort', clusterIP: '10.0.0.1', ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }] }), NOW).slice(1, 5), ['NodePort', '10.0.0.1', '<none>', '80:30080/TCP']);
    assert.equal(t.cells(svc({ type: 'LoadBalancer', ports: [] }), NOW)[3], '<pending>');
    assert.equal(t.cells(svc({ type: 'LoadBalancer' }, { loadBalancer: { ingress: [{ ip: '5.6.7.8' }, { hostname: 'lb.example.com' }, { ip: '1.2.3.4' }] } }), NOW)[3], '1.2.3.4,5.6.7.8,lb.example.com');
    assert.equal(t.cells(svc({ type: 'LoadBalancer', externalIPs: ['9.9.9.9'] }, { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } }), NOW)[3], '1.2.3.4,9.9.9.9');
    assert.deepEqual(t.cells(svc({ type: 'ExternalName', externalName: 'example.com' }), NOW).slice(2, 5), ['<none>', 'example.com', '<none>']);
  });

  it('deployments, replica sets, stateful sets, daemon sets', () => {
    const template = { spec: { containers: [{ name: 'web', image: 'nginx:1' }, { name: 'side', image: 'busybox' }] } };
    const selector = { matchLabels: { app: 'web' } };
    const base = { metadata: { name: 'w', creationTimestamp: ago(2 * 86400) }, spec: { replicas: 3, selector, template } };
    assert.deepEqual(tableOf('apps', 'deployments').cells({ ...base, status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 } }, NOW), [
      'w', '2/3', 3, 2, '2d', 'web,side', 'nginx:1,busybox', 'app=web',
    ]);
    assert.deepEqual(tableOf('apps', 'replicasets').cells({ ...base, status: { replicas: 3, readyReplicas: 1 } }, NOW), ['w', 3, 3, 1, '2d', 'web,side', 'nginx:1,busybox', 'app=web']);
    assert.deepEqual(tableOf('apps', 'statefulsets').cells({ ...base, status: { readyReplicas: 3 } }, NOW), ['w', '3/3', '2d', 'web,side', 'nginx:1,busybox']);
    const ds = { ...base, spec: { selector, template: { spec: { ...template.spec, nodeSelector: { disk: 'ssd' } } } }, status: { desiredNumberScheduled: 2, currentNumberScheduled: 2, numberReady: 1, updatedNumberScheduled: 2, numberAvailable: 1 } };
    assert.deepEqual(tableOf('apps', 'daemonsets').cells(ds, NOW), ['w', 2, 2, 1, 2, 1, 'disk=ssd', '2d', 'web,side', 'nginx:1,busybox', 'app=web']);
  });

  it('jobs and cron jobs', () => {
    const job = {
      metadata: { name: 'j', creationTimestamp: ago(600) },
      spec: { completions: 3, selector: { matchLabels: { 'batch.orch.io/controller-uid': 'u1' } }, template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
      status: { succeeded: 1, startTime: ago(500), completionTime: ago(440) },
    };
    assert.deepEqual(tableOf('batch', 'jobs').cells(job, NOW), ['j', '1/3', '60s', '10m', 'c', 'busybox', 'batch.orch.io/controller-uid=u1']);
    const running = { ...job, spec: { ...job.spec, completions: undefined, parallelism: 2 }, status: { startTime: ago(30) } };
    assert.deepEqual(tableOf('batch', 'jobs').cells(running, NOW).slice(1, 3), ['0/1 of 2', '30s']);
    const cj = {
      metadata: { name: 'cj', creationTimestamp: ago(3600) },
      spec: { schedule: '*/5 * * * *', suspend: false, jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } } } },
      status: { active: [{ name: 'x' }], lastScheduleTime: ago(90) },
    };
    assert.deepEqual(tableOf('batch', 'cronjobs').cells(cj, NOW), ['cj', '*/5 * * * *', false, 1, '90s', '60m', 'c', 'busybox', '']);
  });

  it('events in both versions', () => {
    const core = {
      metadata: { name: 'web.17a', namespace: 'd' },
      involvedObject: { kind: 'Pod', name: 'web', fieldPath: 'spec.containers{web}' },
      reason: 'Pulled',
      message: ' pulled image \n',
      source: { component: 'kubelet', host: 'n1' },
      firstTimestamp: ago(600),
      lastTimestamp: ago(60),
      count: 4,
      type: 'Normal',
    };
    const row = ['60s', 'Normal', 'Pulled', 'pod/web', 'spec.containers{web}', 'kubelet, n1', 'pulled image', '10m', 4, 'web.17a'];
    assert.deepEqual(tableOf('', 'events').cells(core, NOW), row);
    const series = { ...core, series: { count: 7, lastObservedTime: ago(5) }, lastTimestamp: undefined, count: undefined };
    assert.deepEqual(tableOf('', 'events').cells(series, NOW).slice(0, 1), ['5s']);
    const v1 = { metadata: core.metadata, regarding: core.involvedObject, reason: core.reason, note: core.message, deprecatedSource: core.source, deprecatedFirstTimestamp: core.firstTimestamp, deprecatedLastTimestamp: core.lastTimestamp, deprecatedCount: core.count, type: core.type };
    assert.deepEqual(tableOf('events.orch.io', 'events').cells(v1, NOW), row);
    const single = { metadata: { name: 'e' }, involvedObject: { kind: 'Node' }, eventTime: ago(20), reportingComponent: 'ctl' };
    assert.deepEqual(tableOf('', 'events').cells(single, NOW), ['20s', '', '', 'node', '', 'ctl', '', '20s', 1, 'e']);
  });

  it('horizontal pod autoscalers, in both versions', () => {
    const v2 = {
      apiVersion: 'autoscaling/v2',
      metadata: { name: 'h', creationTimestamp: ago(60) },
      spec: {
        scaleTargetRef: { kind: 'Deployment', name: 'web' },
        minReplicas: 1,
        maxReplicas: 5,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
          { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '10' } } },
          { type: 'External', external: { metric: { name: 'q' }, target: { type: 'Value', value: '3' } } },
        ],
      },
      status: { currentReplicas: 2, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 20 } } }] },
    };
    const t = tableOf('autoscaling', 'horizontalpodautoscalers', 'v2');
    assert.deepEqual(t.cells(v2, NOW), ['h', 'Deployment/web', '20%/50%, <unknown>/10 + 1 more...', 1, 5, 2, '60s']);
    const v1 = { apiVersion: 'autoscaling/v1', metadata: { name: 'h' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 3, targetCPUUtilizationPercentage: 70 } };
    assert.deepEqual(t.cells(v1, NOW).slice(1, 4), ['Deployment/web', '<unknown>/70%', '<unset>']);
  });

  it('bindings and roles', () => {
    const rb = {
      metadata: { name: 'rb', creationTimestamp: ago(60) },
      roleRef: { kind: 'ClusterRole', name: 'view', apiGroup: 'rbac.authorization.orch.io' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'Group', name: 'devs' },
        { kind: 'ServiceAccount', name: 'default', namespace: 'ns1' },
        { kind: 'User', name: 'bob' },
      ],
    };
    assert.deepEqual(tableOf('rbac.authorization.orch.io', 'rolebindings').cells(rb, NOW), ['rb', 'ClusterRole/view', '60s', 'alice, bob', 'devs', 'ns1:default']);
    assert.deepEqual(tableOf('rbac.authorization.orch.io', 'roles').cells({ metadata: { name: 'r', creationTimestamp: '2024-01-02T03:04:05.000Z' } }, NOW), ['r', '2024-01-02T03:04:05Z']);
  });

  it('endpoints and persistent volume claims', () => {
    const ep = {
      metadata: { name: 'e', creationTimestamp: ago(60) },
      subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 80 }, { port: 443 }] }],
    };
    assert.deepEqual(tableOf('', 'endpoints').cells(ep, NOW), ['e', '10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...', '60s']);
    const pvc = {
      metadata: { name: 'data', creationTimestamp: ago(60) },
      spec: { volumeName: 'pv1', storageClassName: 'fast', volumeMode: 'Filesystem' },
      status: { phase: 'Bound', capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce', 'ReadOnlyMany'] },
    };
    assert.deepEqual(tableOf('', 'persistentvolumeclaims').cells(pvc, NOW), ['data', 'Bound', 'pv1', '1Gi', 'RWO,ROX', 'fast', '60s', 'Filesystem']);
  });
});

describe('storage columns', () => {
  it('CSI drivers, nodes, capacities and volume attachments', () => {
    const driver = { metadata: { name: 'd', creationTimestamp: ago(60) }, spec: { attachRequired: true, podInfoOnMount: false, volumeLifecycleModes: ['Persistent', 'Ephemeral'], tokenRequests: [{ audience: 'a' }, { audience: 'b' }] } };
    assert.deepEqual(tableOf('storage.orch.io', 'csidrivers').cells(driver, NOW), ['d', true, false, false, 'a,b', false, 'Persistent,Ephemeral', '60s']);
    assert.deepEqual(tableOf('storage.orch.io', 'csinodes').cells({ metadata: { name: 'n' }, spec: { drivers: [{ name: 'x' }] } }, NOW).slice(0, 2), ['n', 1]);
    assert.deepEqual(tableOf('storage.orch.io', 'csistoragecapacities').cells({ metadata: { name: 'c' }, storageClassName: 'fast', capacity: '10Gi' }, NOW).slice(0, 3), ['c', 'fast', '10Gi']);
    const va = { metadata: { name: 'v' }, spec: { attacher: 'csi.example.com', source: { persistentVolumeName: 'pv1' }, nodeName: 'n1' }, status: { attached: true } };
    assert.deepEqual(tableOf('storage.orch.io', 'volumeattachments').cells(va, NOW).slice(0, 5), ['v', 'csi.example.com', 'pv1', 'n1', true]);
  });
});

describe('more columns', () => {
  it('ingresses, endpoint slices, CSRs and priority levels', () => {
    const rules = (n: number) => Array.from({ length: n }, (_, i) => ({ host: `h${i}.example.com` }));
    const ing = (r: unknown[], tls = false) => ({ metadata: { name: 'i' }, spec: { ingressClassName: 'nginx', rules: r, ...(tls ? { tls: [{}] } : {}) } });
    const t = tableOf('networking.orch.io', 'ingresses');
    assert.deepEqual(t.cells(ing(rules(2), true), NOW).slice(1, 5), ['nginx', 'h0.example.com,h1.example.com', '', '80, 443']);
    assert.equal(t.cells(ing(rules(5)), NOW)[2], 'h0.example.com,h1.example.com,h2.example.com + 2 more...');
    assert.equal(t.cells(ing([{}]), NOW)[2], '*');
    const slice = { metadata: { name: 's' }, addressType: 'IPv4', ports: [{ port: 80 }, { name: 'http' }], endpoints: [{ addresses: ['a', 'b'] }, { addresses: ['c', 'd'] }] };
    assert.deepEqual(tableOf('discovery.orch.io', 'endpointslices').cells(slice, NOW).slice(1, 4), ['IPv4', '80,http', 'a,b,c + 1 more...']);
    assert.deepEqual(tableOf('discovery.orch.io', 'endpointslices').cells({ metadata: { name: 'e' } }, NOW).slice(2, 4), ['<unset>', '<unset>']);
    const csr = (conditions: unknown[], certificate?: string) => ({ metadata: { name: 'c' }, spec: { signerName: 's', username: 'u', expirationSeconds: 3600 }, status: { conditions, certificate } });
    const ct = tableOf('certificates.orch.io', 'certificatesigningrequests');
    assert.deepEqual(ct.cells(csr([]), NOW).slice(2), ['s', 'u', '60m', 'Pending']);
    assert.equal(ct.cells(csr([{ type: 'Approved', status: 'True' }], 'Y2VydA=='), NOW)[5], 'Approved,Issued');
    assert.equal(ct.cells(csr([{ type: 'Approved' }, { type: 'Denied' }, { type: 'Failed' }]), NOW)[5], 'Denied,Failed');
    const plc = { metadata: { name: 'p' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 30, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } } } } };
    assert.deepEqual(tableOf('flowcontrol.apiserver.orch.io', 'prioritylevelconfigurations').cells(plc, NOW).slice(1, 6), ['Limited', 30, 64, 8, 50]);
    assert.deepEqual(tableOf('flowcontrol.apiserver.orch.io', 'prioritylevelconfigurations').cells({ metadata: { name: 'e' }, spec: { type: 'Exempt' } }, NOW).slice(1, 6), ['Exempt', '<none>', '<none>', '<none>', '<none>']);
  });
});
