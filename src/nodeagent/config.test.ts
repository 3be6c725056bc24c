import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFromDocuments, loadSimulatedNodeConfig, parseConfigText, SimulatedNodeConfigError, stagesOf } from './config.js';
import { defaultPodStages } from './defaults.js';

const FILE = '/etc/orch/stages.yaml';
const load = (yaml: string): ReturnType<typeof configFromDocuments> => configFromDocuments(parseConfigText(FILE, yaml));

function refused(yaml: string, re: RegExp): void {
  assert.throws(
    () => load(yaml),
    (e: unknown) => e instanceof SimulatedNodeConfigError && e.message.startsWith(FILE) && re.test(e.message),
    `expected ${re} for:\n${yaml}`,
  );
}

const stage = (spec: string, name = 'broken'): string => `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: ${name}}
spec:
${spec
  .trim()
  .split('\n')
  .map((l) => `  ${l}`)
  .join('\n')}
`;

test('a crash-loop stage in KWOK style loads, with its selector, delay, weight and template', () => {
  const config = load(
    stage(
      `
resourceRef: {apiGroup: v1, kind: Pod}
selector:
  matchLabels: {crash: "true"}
  matchExpressions:
  - key: '.metadata.deletionTimestamp'
    operator: 'DoesNotExist'
  - jq: {key: '.status.phase', operator: In, values: [Running]}
delay:
  durationMilliseconds: 1000
  jitterDurationMilliseconds: 2000
  jitterDurationFrom: {jq: {expression: '.metadata.annotations["jitter"]'}}
weight: 5
next:
  event: {type: Warning, reason: BackOff, message: Back-off restarting failed container}
  statusTemplate: |
    {{ $now := Now }}
    containerStatuses:
    {{ range $i, $c := .spec.containers }}
    {{ $old := index $.status.containerStatuses $i }}
    - name: {{ $c.name | Quote }}
      image: {{ $c.image | Quote }}
      ready: false
      restartCount: {{ add1 (or $old.restartCount 0) }}
      state:
        waiting: {reason: CrashLoopBackOff}
    {{ end }}
immediateNextStage: false
`,
      'pod-crash-loop',
    ),
  );
  assert.equal(config.stages.length, 1);
  const s = config.stages[0]!;
  assert.deepEqual([s.name, s.kind, s.source, s.weight, s.matchExpressions.length], ['pod-crash-loop', 'Pod', FILE, 5, 2]);
  assert.deepEqual(s.matchLabels, { crash: 'true' });
  assert.equal(s.delay?.durationMs, 1000);
  assert.equal(s.next.event?.reason, 'BackOff');
  assert.ok(s.next.statusTemplate);
  // Given Pod stages replace the built-in ones for pods; nodes keep theirs.
  assert.deepEqual(stagesOf(config, 'Pod', defaultPodStages).map((x) => x.name), ['pod-crash-loop']);
  assert.deepEqual(stagesOf(config, 'Node', () => []).length, 0);
  assert.deepEqual(stagesOf(load(''), 'Pod', defaultPodStages).map((x) => x.name), ['pod-ready', 'pod-ready-again', 'pod-complete', 'pod-delete']);
});

test('what is not supported is refused at load, naming the file, the document and the stage', () => {
  refused(stage(`resourceRef: {kind: Pod}\nselector: {}\nnext: {statusTemplate: "{{ uuidv4 }}"}`), /document 1: Stage "broken": spec\.next\.statusTemplate: line 1: function "uuidv4" is not supported/);
  refused(stage(`resourceRef: {kind: Pod}\nselector: {matchExpressions: [{key: '.a | length', operator: In, values: [x]}]}\nnext: {delete: true}`), /Stage "broken": spec\.selector\.matchExpressions\[0\]\.key: expression ".a \| length": "length"/);
  refused(stage(`resourceRef: {kind: Pod}\nselector: {matchExpressions: [{cel: {expression: 'true'}}]}\nnext: {delete: true}`), /matchExpressions\[0\]\.cel: CEL selectors are not supported/);
  refused(stage(`resourceRef: {kind: Pod}\nselector: {matchExpressions: [{key: .a, operator: Gt, values: ["1"]}]}\nnext: {delete: true}`), /operator: must be one of In, NotIn, Exists, DoesNotExist/);
  refused(stage(`resourceRef: {kind: Pod}\nselector: {matchExpressions: [{key: .a, operator: In}]}\nnext: {delete: true}`), /values: must not be empty for In/);
  refused(stage(`resourceRef: {kind: Pod}\nselector: {matchExpressions: [{key: .a, operator: Exists, values: [x]}]}\nnext: {delete: true}`), /values: must be empty for Exists/);
  refused(stage(`resourceRef: {kind: Deployment, apiGroup: apps}\nselector: {}\nnext: {delete: true}`), /apiGroup: must be "v1"/);
  refused(stage(`resourceRef: {kind: Service}\nselector: {}\nnext: {delete: true}`), /Pod and Node only, not "Service"/);
  refused(stage(`resourceRef: {kind: Pod}\nnext: {delete: true}`), /spec\.selector: is required/);
  refused(stage(`resourceRef: {kind: Pod}\nselector: {}\nsteps: []`), /spec\.steps: is not supported; use next/);
  refused(stage(`resourceRef: {kind: Pod}\nselector: {}\nnext: {patches: []}`), /spec\.next\.patches: is not supported/);
  refused(stage(`resourceRef: {kind: Pod}\nselector: {}\nnext: {statusSubresource: status}`), /statusSubresource: is not supported/);
  refused(stage(`resourceRef: {kind: Pod}\nselector: {}\nnext: {}`), /spec\.next: does nothing/);
  refused(stage(`resourceRef: {kind: Pod}\nselector: {}\nnext: {delete: "yes"}`), /spec\.next\.delete: must be true or false/);
  refused(stage(`resourceRef: {kind: Pod}\nselector: {}\ndelay: {durationMilliseconds: -1}\nnext: {delete: true}`), /durationMilliseconds: must be a whole number/);
  refused(stage(`resourceRef: {kind: Pod}\nselector: {}\ndelay: {durationFrom: {cel: {expression: x}}}\nnext: {delete: true}`), /durationFrom\.cel: CEL expressions are not supported/);
  refused(stage(`resourceRef: {kind: Pod}\nselector: {}\nnext: {event: {type: Fatal, reason: X}}`), /event\.type: must be Normal or Warning/);
  refused(stage(`resourceRef: {kind: Pod}\nselector: {}\nnext: {delete: true}\nsurprise: 1`), /spec\.surprise: is not a field/);
  refused(`apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata: {}\nspec: {}`, /metadata\.name: is required/);
  refused(`apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Exec\nmetadata: {name: e}`, /document 1: kwok\.x-k8s\.io\/v1alpha1 Exec is not supported/);
  refused(`---\n---\nkind: ConfigMap\napiVersion: v1\n`, /document 2: v1 ConfigMap is not supported/);
  refused(`apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: b}`, /a second Node template/);
  refused(`apiVersion: v1\nkind: Node\nstatus: {addresses: []}`, /status\.addresses: is not a template field/);
  refused(`apiVersion: v1\nkind: Node\nspec: {podCIDR: 10.0.0.0/24}`, /Node template: spec\.podCIDR: is each node's own/);
  refused(`apiVersion: v1\nkind: Node\nmetadata: {name: Bad_Name}`, /metadata\.name: must be a DNS subdomain/);
  refused(`- a list`, /not a mapping/);
  refused(`a: [unclosed`, /document 1/);
});

test('hostile documents: own keys only, aliases bounded, sizes bounded', () => {
  refused(stage(`resourceRef: {kind: Pod}\nselector: {}\nnext: {delete: true}\n__proto__: {polluted: true}`), /spec\.__proto__: is not a field/);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  const labels = load(stage(`resourceRef: {kind: Pod}\nselector: {matchLabels: {__proto__: x, constructor: y}}\nnext: {delete: true}`, 'ok')).stages[0]!.matchLabels!;
  assert.deepEqual(Object.keys(labels).sort(), ['__proto__', 'constructor']);
  const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
  for (let i = 1; i < 10; i++) bomb.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)}]`);
  refused(bomb.join('\n'), /document 1: .*(alias|Excessive)/i);
});

test('Logs, ClusterLogs and a Node template; relative log files are read beside the configuration', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-nodeagent-'));
  try {
    const file = join(dir, 'sim.yaml');
    writeFileSync(
      file,
      `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Logs
metadata: {name: web, namespace: shop}
spec:
  logs:
  - containers: [app]
    logsFile: logs/app.log
    previousLogsFile: /var/log/prev.log
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata: {name: all}
spec:
  selector: {matchNamespaces: [shop]}
  logs: [{logsFile: /var/log/any.log, follow: true}]
---
apiVersion: v1
kind: Node
metadata:
  name: big
  labels: {pool: gpu}
status:
  capacity: {cpu: "96", nvidia.com/gpu: "8"}
  nodeInfo: {architecture: arm64}
`,
    );
    const config = await loadSimulatedNodeConfig([file]);
    assert.deepEqual(config.logs, [{ name: 'web', namespace: 'shop', logs: [{ containers: ['app'], logsFile: join(dir, 'logs/app.log'), previousLogsFile: '/var/log/prev.log', follow: false }] }]);
    assert.deepEqual(config.clusterLogs, [{ name: 'all', matchNamespaces: ['shop'], matchNames: [], logs: [{ containers: [], logsFile: '/var/log/any.log', follow: true }] }]);
    assert.equal(config.nodeTemplate?.metadata?.name, 'big');
    await assert.rejects(loadSimulatedNodeConfig([join(dir, 'missing.yaml')]), (e: unknown) => e instanceof SimulatedNodeConfigError && e.message.includes('missing.yaml: cannot read'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
