// The whole server over HTTPS with priority and fairness on (the default): the bootstrap
// configuration, classification headers, 429 from a tiny Reject level, watches that give their
// seat back once initialized, Dangling conditions, autoupdate, metrics, the debug dumps, a
// flood that does not starve another user, and the switch back to the in-flight limits.
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/types.js';
import { ensureBootstrapConfiguration, flowSchemaResource, priorityLevelResource } from '../../flowcontrol/ensure.js';
import { startAuthTestServer, type AuthTestServer, type Identity } from '../../testing/server.js';
import { eventually } from '../../testing/wait.js';

const FC = '/apis/flowcontrol.apiserver.orch.io/v1beta3';
const everything = { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] };

function flowSchema(name: string, level: string, user: string, precedence = 10): KubeObject {
  return {
    apiVersion: 'flowcontrol.apiserver.orch.io/v1beta3',
    kind: 'FlowSchema',
    metadata: { name },
    spec: { priorityLevelConfiguration: { name: level }, matchingPrecedence: precedence, distinguisherMethod: { type: 'ByUser' }, rules: [{ subjects: [{ kind: 'User', user: { name: user } }], ...everything }] },
  };
}

function rejectLevel(name: string): KubeObject {
  return {
    apiVersion: 'flowcontrol.apiserver.orch.io/v1beta3',
    kind: 'PriorityLevelConfiguration',
    metadata: { name },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, lendablePercent: 0, borrowingLimitPercent: 0, limitResponse: { type: 'Reject' } } },
  };
}

/** Opens a watch and resolves with its status once the headers arrive; the stream stays open until `close`. */
function openWatch(s: AuthTestServer, path: string, who: Identity): Promise<{ status: number; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, s.url), { method: 'GET', ca: s.serverCA, cert: who.cert?.certPem, key: who.cert?.keyPem, agent: false }, (res) => {
      res.on('data', () => {});
      res.on('error', () => {});
      resolve({ status: res.statusCode ?? 0, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('priority and fairness, black-box', () => {
  let s: AuthTestServer;
  let bob: Identity;
  let alice: Identity;

  before(async () => {
    s = await startAuthTestServer(['--max-requests-inflight=1', '--max-mutating-requests-inflight=1']);
    bob = await s.user('bob');
    alice = await s.user('alice');
    // bob may do anything, but through RBAC, not as a member of the exempt system:masters.
    const binding = { apiVersion: 'rbac.authorization.orch.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'bob-admin' }, roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ kind: 'User', name: 'bob', apiGroup: 'rbac.authorization.orch.io' }] };
    assert.equal((await s.request('POST', '/apis/rbac.authorization.orch.io/v1/clusterrolebindings', s.admin, binding)).status, 201);
  });
  after(async () => {
    await s?.stop();
  });

  it('creates the mandatory and suggested configuration at start, behind its post-start hooks', async () => {
    const fs = await s.request('GET', `${FC}/flowschemas`, s.admin);
    const names = (fs.json.items as KubeObject[]).map((o) => o.metadata?.name).sort();
    assert.equal(names.length, 13);
    assert.ok(names.includes('exempt') && names.includes('catch-all') && names.includes('kube-system-service-accounts'));
    const pl = await s.request('GET', `${FC}/prioritylevelconfigurations`, s.admin);
    assert.deepEqual((pl.json.items as KubeObject[]).map((o) => o.metadata?.name).sort(), ['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low']);
    for (const o of pl.json.items as KubeObject[]) assert.equal(o.metadata?.annotations?.['apf.orch.io/autoupdate-spec'], 'true');
    const ready = await s.request('GET', '/readyz?verbose', s.admin);
    assert.match(ready.text, /\[\+\]poststarthook\/priority-and-fairness-config-producer ok/);
    assert.match(ready.text, /\[\+\]poststarthook\/priority-and-fairness-config-consumer ok/);
  });

  it('answers with the UIDs of the FlowSchema and priority level that classified the request', async () => {
    const fs = await s.request('GET', `${FC}/flowschemas/global-default`, s.admin);
    const pl = await s.request('GET', `${FC}/prioritylevelconfigurations/global-default`, s.admin);
    const exempt = await s.request('GET', `${FC}/flowschemas/exempt`, s.admin);
    // Classification comes before authorization: even a refused request says where it went.
    const r = await s.request('GET', '/api/v1/namespaces/default/configmaps', alice);
    assert.equal(r.status, 403);
    assert.equal(r.headers['x-kubernetes-pf-flowschema-uid'], (fs.json.metadata as { uid: string }).uid);
    assert.equal(r.headers['x-kubernetes-pf-prioritylevel-uid'], (pl.json.metadata as { uid: string }).uid);
    assert.equal(exempt.headers['x-kubernetes-pf-flowschema-uid'], (exempt.json.metadata as { uid: string }).uid);
  });

  it('a user without rights cannot make themselves exempt or change a level', async () => {
    const sneaky = { ...flowSchema('alice-exempt', 'exempt', 'alice', 1), metadata: { name: 'alice-exempt' } };
    assert.equal((await s.request('POST', `${FC}/flowschemas`, alice, sneaky)).status, 403);
    assert.equal((await s.request('DELETE', `${FC}/prioritylevelconfigurations/global-default`, alice)).status, 403);
    const r = await s.request('GET', '/version', alice);
    const global = await s.request('GET', `${FC}/flowschemas/global-default`, s.admin);
    assert.equal(r.headers['x-kubernetes-pf-flowschema-uid'], (global.json.metadata as { uid: string }).uid);
  });

  it('refuses a request beyond a Reject level’s seats with 429 and Retry-After; a watch holds its seat only while it starts', async () => {
    const level = await s.request('POST', `${FC}/prioritylevelconfigurations`, s.admin, rejectLevel('tight'));
    assert.equal(level.status, 201, level.text);
    const schema = await s.request('POST', `${FC}/flowschemas`, s.admin, flowSchema('tight', 'tight', 'bob'));
    assert.equal(schema.status, 201, schema.text);
    const uid = (schema.json.metadata as { uid: string }).uid;
    await eventually(async () => (await s.request('GET', '/version', bob)).headers['x-kubernetes-pf-flowschema-uid'] === uid, 'bob classified by the new FlowSchema');

    // A watch takes the single seat while it starts, and gives it back.
    const watch = await openWatch(s, '/api/v1/namespaces/default/configmaps?watch=1', bob);
    assert.equal(watch.status, 200);
    try {
      assert.equal((await s.request('GET', '/api/v1/namespaces/default/configmaps', bob)).status, 200);
    } finally {
      watch.close();
    }

    // A list waiting for a future resourceVersion (up to 3 s) holds the seat.
    const holding = s.request('GET', '/api/v1/namespaces/default/configmaps?resourceVersion=999999999', bob);
    const refused = await eventually(async () => {
      const r = await s.request('GET', '/api/v1/namespaces/default/configmaps', bob);
      return r.status === 429 ? r : undefined;
    }, 'a 429 while the seat is held');
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal(refused.json.kind, 'Status');
    assert.equal(refused.json.reason, 'TooManyRequests');
    assert.equal(refused.json.message, 'Too many requests, please try again later.');
    assert.equal(refused.headers['x-kubernetes-pf-flowschema-uid'], uid);
    await holding;
    assert.equal((await s.request('GET', '/api/v1/namespaces/default/configmaps', bob)).status, 200);

    const metrics = await s.request('GET', '/metrics', s.admin);
    assert.match(metrics.text, /apiserver_flowcontrol_rejected_requests_total\{priority_level="tight",flow_schema="tight",reason="concurrency-limit"\} [1-9]/);
    assert.match(metrics.text, /apiserver_flowcontrol_dispatched_requests_total\{priority_level="tight",flow_schema="tight"\} [1-9]/);
    assert.match(metrics.text, /apiserver_flowcontrol_nominal_limit_seats\{priority_level="tight"\} 1/);
    assert.match(metrics.text, /apiserver_flowcontrol_current_executing_requests\{priority_level="exempt",flow_schema="exempt"\} 1/);
    assert.match(metrics.text, /apiserver_flowcontrol_request_wait_duration_seconds_bucket\{le="0",priority_level="tight",flow_schema="tight",execute="true"\}/);
    assert.match(metrics.text, /apiserver_flowcontrol_current_inqueue_requests/);
  });

  it('serves the debug dumps to those allowed the non-resource URL', async () => {
    const levels = await s.request('GET', '/debug/api_priority_and_fairness/dump_priority_levels', s.admin);
    assert.equal(levels.status, 200);
    assert.match(levels.text, /^PriorityLevelName, +ActiveQueues, +IsIdle,/);
    assert.match(levels.text, /^exempt, +<none>, +<none>/m);
    assert.match(levels.text, /^tight, +0, +true, +false, +0, +0, +\d+, +[1-9]\d*, +0, +0$/m);
    assert.match((await s.request('GET', '/debug/api_priority_and_fairness/dump_queues', s.admin)).text, /^global-default, +127, /m);
    assert.match((await s.request('GET', '/debug/api_priority_and_fairness/dump_requests?includeRequestDetails=1', s.admin)).text, /^PriorityLevelName, .*UserName, +Verb,/);
    assert.equal((await s.request('GET', '/debug/api_priority_and_fairness/dump_requests', alice)).status, 403);
  });

  it('marks a FlowSchema whose level is missing as Dangling', async () => {
    assert.equal((await s.request('POST', `${FC}/flowschemas`, s.admin, flowSchema('lost', 'no-such-level', 'carol'))).status, 201);
    const condition = await eventually(async () => {
      const r = await s.request('GET', `${FC}/flowschemas/lost`, s.admin);
      return ((r.json.status as { conditions?: Record<string, string>[] } | undefined)?.conditions ?? []).find((c) => c.type === 'Dangling');
    }, 'the Dangling condition');
    assert.equal(condition.status, 'True');
    assert.equal(condition.reason, 'NotFound');
    assert.equal(condition.message, 'This FlowSchema references the PriorityLevelConfiguration object named "no-such-level" but there is no such object');
    const probes = await eventually(async () => {
      const r = await s.request('GET', `${FC}/flowschemas/probes`, s.admin);
      return ((r.json.status as { conditions?: Record<string, string>[] } | undefined)?.conditions ?? []).find((c) => c.type === 'Dangling');
    }, 'the Found condition');
    assert.equal(probes.status, 'False');
    assert.equal(probes.reason, 'Found');
  });

  it('keeps mandatory objects, respects a suggested one turned off, recreates a deleted one, and removes none of the administrator’s', async () => {
    const client = s.running.client;
    // A mandatory level's spec cannot change (1.27's validation fixes it); its annotation can.
    const catchAll = await client.get(priorityLevelResource(), '', 'catch-all');
    catchAll.metadata!.annotations = { 'apf.orch.io/autoupdate-spec': 'false' };
    await client.update(priorityLevelResource(), '', catchAll);
    const global = await client.get(priorityLevelResource(), '', 'global-default');
    (global.spec as { limited: { nominalConcurrencyShares: number } }).limited.nominalConcurrencyShares = 77;
    global.metadata!.annotations = { 'apf.orch.io/autoupdate-spec': 'false' };
    await client.update(priorityLevelResource(), '', global);
    await client.delete(flowSchemaResource(), '', 'probes');

    const result = await ensureBootstrapConfiguration(client);
    assert.deepEqual(result, { created: ['flowschemas/probes'], updated: ['prioritylevelconfigurations/catch-all'], deleted: [] });
    const restored = await client.get(priorityLevelResource(), '', 'catch-all');
    assert.equal((restored.spec as { limited: { nominalConcurrencyShares: number } }).limited.nominalConcurrencyShares, 5);
    assert.equal(restored.metadata?.annotations?.['apf.orch.io/autoupdate-spec'], 'true');
    const kept = await client.get(priorityLevelResource(), '', 'global-default');
    assert.equal((kept.spec as { limited: { nominalConcurrencyShares: number } }).limited.nominalConcurrencyShares, 77);
    // Nothing left to do the second time.
    assert.deepEqual(await ensureBootstrapConfiguration(client), { created: [], updated: [], deleted: [] });
  });

  it('a flood from one user at 50 concurrent clients does not starve another user', async () => {
    const flooder = await s.user('flooder');
    const victim = await s.user('victim');
    for (const name of ['flooder', 'victim']) {
      const binding = { apiVersion: 'rbac.authorization.orch.io/v1', kind: 'ClusterRoleBinding', metadata: { name: `${name}-view` }, roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name, apiGroup: 'rbac.authorization.orch.io' }] };
      assert.equal((await s.request('POST', '/apis/rbac.authorization.orch.io/v1/clusterrolebindings', s.admin, binding)).status, 201);
    }
    let flooding = true;
    const codes = new Map<number, number>();
    const clients = Array.from({ length: 50 }, async () => {
      while (flooding) {
        const r = await s.request('GET', '/api/v1/namespaces/default/configmaps', flooder);
        codes.set(r.status, (codes.get(r.status) ?? 0) + 1);
      }
    });
    try {
      for (let i = 0; i < 3; i++) assert.equal((await s.request('GET', '/api/v1/namespaces/default/configmaps', victim)).status, 200);
    } finally {
      flooding = false;
      await Promise.all(clients);
    }
    assert.ok((codes.get(200) ?? 0) > 0, `the flood was served too: ${JSON.stringify([...codes])}`);
  });
});

describe('priority and fairness off', () => {
  it('with the gate off, the in-flight limits apply and nothing is classified', async () => {
    const s = await startAuthTestServer(['--feature-gates=APIPriorityAndFairness=false']);
    try {
      const r = await s.request('GET', '/version', s.admin);
      assert.equal(r.status, 200);
      assert.equal(r.headers['x-kubernetes-pf-flowschema-uid'], undefined);
      const fs = await s.request('GET', `${FC}/flowschemas`, s.admin);
      assert.deepEqual(fs.json.items, []);
      assert.equal((await s.request('GET', '/debug/api_priority_and_fairness/dump_queues', s.admin)).status, 404);
      assert.doesNotMatch((await s.request('GET', '/metrics', s.admin)).text, /apiserver_flowcontrol_nominal_limit_seats\{/);
    } finally {
      await s.stop();
    }
  });
});
