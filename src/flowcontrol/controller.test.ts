import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { FakeClock } from '../apimachinery/clock.js';
import type { KubeObject } from '../apimachinery/types.js';
import { setFlavor } from '../naming/index.js';
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from './bootstrap.js';
import { FlowController, levelLimits } from './controller.js';
import { tabulate } from './debug.js';
import { FlowControlMetrics } from './metrics.js';

setFlavor('orch');
const withUid = (o: KubeObject, i: number): KubeObject => ({ ...o, metadata: { ...o.metadata, uid: `uid-${o.metadata?.name}-${i}` } });
const allLevels = () => [...mandatoryPriorityLevels(), ...suggestedPriorityLevels()].map(withUid);
const allSchemas = () => [...mandatoryFlowSchemas(), ...suggestedFlowSchemas()].map(withUid);

function controller(serverCL = 600) {
  const registry = new Registry();
  const clock = new FakeClock();
  const c = new FlowController({ serverConcurrencyLimit: serverCL, requestWaitLimitMs: 15_000, clock, metrics: new FlowControlMetrics(registry) });
  return { c, registry, clock };
}

describe('seats', () => {
  it('divides the server limit by shares, rounding up, as 1.27 does', () => {
    // 400 + 200 in flight, bootstrap shares sum to 245.
    const table: [number, number, number, number | undefined, number, number, number][] = [
      [600, 20, 245, 50, 49, 25, 649],
      [600, 5, 245, 0, 13, 0, 613],
      [600, 100, 245, 90, 245, 221, 845],
      [600, 30, 245, 33, 74, 24, 674],
      [1, 5, 245, 0, 1, 0, 2],
    ];
    for (const [serverCL, shares, sum, lendable, nominal, lendableSeats, max] of table) {
      assert.deepEqual(levelLimits(serverCL, shares, sum, lendable), { nominal, lendable: lendableSeats, max }, `${serverCL} ${shares}`);
    }
    assert.equal(levelLimits(600, 20, 245, 50, 10).max, 49 + 5);
  });

  it('reports nominal, lower, upper and current seats per level', async () => {
    const { c, registry } = controller();
    c.configure(allSchemas(), allLevels());
    const text = await registry.metrics();
    assert.match(text, /apiserver_flowcontrol_nominal_limit_seats\{priority_level="global-default"\} 49/);
    assert.match(text, /apiserver_flowcontrol_request_concurrency_limit\{priority_level="workload-low"\} 245/);
    assert.match(text, /apiserver_flowcontrol_lower_limit_seats\{priority_level="workload-low"\} 24/);
    assert.match(text, /apiserver_flowcontrol_current_limit_seats\{priority_level="catch-all"\} 13/);
  });
});

describe('configuration', () => {
  it('before any object is read, the mandatory ones are imagined', async () => {
    const { c } = controller();
    const admin = c.classify({ user: { username: 'a', groups: ['system:masters'] }, info: { isResourceRequest: true, path: '', verb: 'get', apiGroup: '', apiVersion: 'v1', namespace: 'x', resource: 'pods', subresource: '', name: '' } });
    assert.equal(admin.flowSchema.name, 'exempt');
    const alice = c.classify({ user: { username: 'alice', groups: ['system:authenticated'] }, info: { isResourceRequest: false, path: '/version', verb: 'get', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' } });
    assert.deepEqual([alice.flowSchema.name, alice.priorityLevel.name, alice.distinguisher], ['catch-all', 'catch-all', '']);
  });

  it('marks FlowSchemas Dangling when their level is missing, Found otherwise, and skips dangling ones', () => {
    const { c } = controller();
    const levels = allLevels().filter((o) => o.metadata?.name !== 'global-default');
    const updates = c.configure(allSchemas(), levels);
    const dangling = updates.find((u) => u.name === 'global-default');
    assert.deepEqual(dangling?.condition.status, 'True');
    assert.equal(dangling?.condition.reason, 'NotFound');
    assert.equal(dangling?.condition.message, 'This FlowSchema references the PriorityLevelConfiguration object named "global-default" but there is no such object');
    assert.equal(updates.find((u) => u.name === 'probes')?.condition.message, 'This FlowSchema references the PriorityLevelConfiguration object named "exempt" and it exists');
    const alice = c.classify({ user: { username: 'alice', groups: ['system:authenticated'] }, info: { isResourceRequest: false, path: '/version', verb: 'get', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' } });
    assert.equal(alice.flowSchema.name, 'catch-all');
    // Conditions already right: nothing to write.
    const withStatus = allSchemas().map((o) => ({ ...o, status: { conditions: [updates.find((u) => u.name === o.metadata?.name)!.condition] } }));
    assert.deepEqual(c.configure(withStatus, levels), []);
  });

  it('ignores broken objects without throwing', () => {
    const { c } = controller();
    const bad: KubeObject[] = [
      { apiVersion: 'x', kind: 'FlowSchema', metadata: { name: 'bad1' }, spec: { priorityLevelConfiguration: {}, rules: 'x' } },
      { apiVersion: 'x', kind: 'FlowSchema', metadata: { name: '__proto__' }, spec: { priorityLevelConfiguration: { name: 'nope' }, rules: [{ subjects: [{ kind: 'Group', group: { name: '*' } }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }], matchingPrecedence: 1 } },
    ];
    const badLevels: KubeObject[] = [
      { apiVersion: 'x', kind: 'PriorityLevelConfiguration', metadata: { name: 'q' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Queue', queuing: { queues: 1e9, handSize: 1 } } } } },
      { apiVersion: 'x', kind: 'PriorityLevelConfiguration', metadata: { name: 'r' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: -5 } } },
      { apiVersion: 'x', kind: 'PriorityLevelConfiguration', metadata: { name: 's' }, spec: null },
    ];
    c.configure([...allSchemas(), ...bad], [...allLevels(), ...badLevels]);
    assert.match(c.dumpPriorityLevels(), /global-default/);
    assert.doesNotMatch(c.dumpPriorityLevels(), /^q,/m);
  });
});

describe('debug dumps', () => {
  it('lays out cells as Go tabwriter does', () => {
    assert.equal(tabulate(['a,\tbb,\tc', 'aaaaaaaaaa,\tb,\tc']), 'a,          bb,     c\naaaaaaaaaa, b,      c\n');
  });

  it('dumps the priority levels, queues and waiting requests', async () => {
    const { c } = controller(1);
    // No lending, so that one request fills global-default's single seat.
    const unlent = allLevels().map((o) => {
      const limited = (o.spec as { limited?: { lendablePercent?: number } }).limited;
      if (limited) limited.lendablePercent = 0;
      return o;
    });
    c.configure(allSchemas(), unlent);
    const levels = c.dumpPriorityLevels().split('\n');
    assert.match(levels[0]!, /^PriorityLevelName, +ActiveQueues, +IsIdle, +IsQuiescing, +WaitingRequests, +ExecutingRequests, +DispatchedRequests, +RejectedRequests, +TimedoutRequests, +CancelledRequests$/);
    assert.ok(levels.some((l) => /^exempt, +<none>, +<none>/.test(l)));
    assert.ok(levels.some((l) => /^global-default, +0, +true, +false, +0, +0, +0, +0, +0, +0$/.test(l)));
    const digest = { user: { username: 'alice', groups: ['system:authenticated'] }, info: { isResourceRequest: true, path: '/api/v1/namespaces/ns/pods', verb: 'list', apiGroup: '', apiVersion: 'v1', namespace: 'ns', resource: 'pods', subresource: '', name: '' } };
    const first = await c.admit(digest, new AbortController().signal);
    assert.ok('execute' in first);
    const queued = c.admit(digest, new AbortController().signal);
    await new Promise((r) => setImmediate(r));
    const requests = c.dumpRequests(true);
    assert.match(requests.split('\n')[0]!, /^PriorityLevelName, +FlowSchemaName, +QueueIndex, +RequestIndexInQueue, +FlowDistingsher, +ArriveTime, +InitialSeats, +FinalSeats, +AdditionalLatency, +UserName, +Verb, +APIPath, +Namespace, +Name, +APIVersion, +Resource, +SubResource$/);
    assert.match(requests, /global-default, +global-default, +\d+, +0, +alice, +2024-01-01T00:00:00.000Z, +1, +0, +0s, +alice, +list, +\/api\/v1\/namespaces\/ns\/pods, +ns, +, +v1, +pods, *$/m);
    // The waiting request joined the shortest queue of its hand: not the one executing.
    assert.match(c.dumpQueues(), /^global-default, +\d+, +1, +0, +0, /m);
    assert.match(c.dumpQueues(), /^global-default, +\d+, +0, +1, +1, /m);
    first.execute();
    const second = await queued;
    assert.ok('execute' in second);
    second.execute();
    assert.match(c.dumpPriorityLevels(), /^global-default, +0, +true, +false, +0, +0, +2, +0, +0, +0$/m);
  });
});

describe('the switch', () => {
  it('--enable-priority-and-fairness and the APIPriorityAndFairness gate must both be on', async () => {
    const { parseFlags } = await import('../apimachinery/flags.js');
    const { defaultFeatureGate } = await import('../apimachinery/features.js');
    const { flowControlFlagDefinitions, priorityAndFairnessEnabled, PriorityAndFairness } = await import('./index.js');
    const gate = defaultFeatureGate();
    assert.equal(priorityAndFairnessEnabled(parseFlags([], flowControlFlagDefinitions), gate), true);
    assert.equal(priorityAndFairnessEnabled(parseFlags(['--enable-priority-and-fairness=false'], flowControlFlagDefinitions), gate), false);
    gate.set('APIPriorityAndFairness=false');
    assert.equal(priorityAndFairnessEnabled(parseFlags([], flowControlFlagDefinitions), gate), false);
    const opts = { requestTimeoutMs: 60_000, clock: new FakeClock(), registry: new Registry() };
    assert.throws(() => new PriorityAndFairness({ ...opts, maxRequestsInFlight: 0, maxMutatingRequestsInFlight: 0 }), /--max-requests-inflight, --max-mutating-requests-inflight/);
    assert.throws(() => new PriorityAndFairness({ ...opts, maxRequestsInFlight: -1, maxMutatingRequestsInFlight: 5 }), /--max-requests-inflight: can not be negative/);
  });
});
