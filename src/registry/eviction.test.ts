// pods/x/eviction over HTTP against budgets whose status the test sets (the disruption
// controller is off here, so the budgets say exactly what each case needs; so is the scheduler,
// whose status writes on these node-less pods would race the test's own).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startAuthTestServer, type AuthTestServer } from '../testing/server.js';

const NS = '/api/v1/namespaces/default';
const PDBS = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';

describe('pods/x/eviction', () => {
  let s: AuthTestServer;

  before(async () => {
    s = await startAuthTestServer(['--compat=kubernetes', '--controllers=*,-disruption', '--scheduler=false']);
  });
  after(async () => {
    await s?.stop();
  });

  const eviction = (name: string, extra: Record<string, unknown> = {}, apiVersion = 'policy/v1'): unknown => ({ apiVersion, kind: 'Eviction', metadata: { name }, ...extra });
  const evict = (name: string, body: unknown = eviction(name), query = '') => s.request('POST', `${NS}/pods/${name}/eviction${query}`, s.admin, body);
  const getPod = (name: string) => s.request('GET', `${NS}/pods/${name}`, s.admin);

  /** A pod with `labels`, in `phase`, Ready or not. */
  async function makePod(name: string, labels: Record<string, string>, phase = 'Running', ready = true): Promise<void> {
    const created = await s.request('POST', `${NS}/pods`, s.admin, { metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    assert.equal(created.status, 201, created.text);
    const pod = created.json;
    pod.status = { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] };
    const st = await s.request('PUT', `${NS}/pods/${name}/status`, s.admin, pod);
    assert.equal(st.status, 200, st.text);
  }

  /** A budget over `app`, with the status fields given (observedGeneration follows the generation unless set). */
  async function makeBudget(name: string, app: string, status: Record<string, unknown>, spec: Record<string, unknown> = { minAvailable: 1 }): Promise<void> {
    const created = await s.request('POST', PDBS, s.admin, { metadata: { name }, spec: { selector: { matchLabels: { app } }, ...spec } });
    assert.equal(created.status, 201, created.text);
    const pdb = created.json;
    pdb.status = { observedGeneration: (pdb.metadata as { generation: number }).generation, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0, disruptionsAllowed: 0, ...status };
    const st = await s.request('PUT', `${PDBS}/${name}/status`, s.admin, pdb);
    assert.equal(st.status, 200, st.text);
  }

  it('evicts a pod no budget covers: 201 Success, the pod deleted', async () => {
    await makePod('free', { app: 'free' });
    const r = await evict('free');
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    assert.equal((await getPod('free')).status, 404);
  });

  it('refuses with 429 and the budget as cause when no disruption is allowed; the pod stays', async () => {
    await makePod('held', { app: 'held' });
    await makeBudget('held', 'held', { currentHealthy: 1, desiredHealthy: 1, expectedPods: 1, disruptionsAllowed: 0 });
    const r = await evict('held');
    assert.equal(r.status, 429, r.text);
    assert.equal(r.json.reason, 'TooManyRequests');
    assert.equal(r.json.message, "Cannot evict pod as it would violate the pod's disruption budget.");
    assert.deepEqual(r.json.details, { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget held needs 1 healthy pods and has 1 currently' }] });
    assert.equal(r.headers['retry-after'], undefined);
    const pod = await getPod('held');
    assert.equal(pod.status, 200);
    assert.equal((pod.json.metadata as { deletionTimestamp?: string }).deletionTimestamp, undefined);
  });

  it('takes one disruption from the budget, records the pod and marks it DisruptionTarget', async () => {
    await makePod('web-1', { app: 'web' });
    await makePod('web-2', { app: 'web' });
    await makeBudget('web', 'web', { currentHealthy: 2, desiredHealthy: 1, expectedPods: 2, disruptionsAllowed: 1 });
    // A dry run changes nothing.
    const dry = await evict('web-1', eviction('web-1'), '?dryRun=All');
    assert.equal(dry.status, 201, dry.text);
    assert.equal(((await s.request('GET', `${PDBS}/web`, s.admin)).json.status as { disruptionsAllowed: number }).disruptionsAllowed, 1);
    assert.equal((await getPod('web-1')).status, 200);

    const r = await evict('web-1');
    assert.equal(r.status, 201, r.text);
    const pdb = (await s.request('GET', `${PDBS}/web`, s.admin)).json.status as Record<string, unknown>;
    assert.equal(pdb.disruptionsAllowed, 0);
    assert.deepEqual(Object.keys(pdb.disruptedPods as object), ['web-1']);
    const cond = (pdb.conditions as Record<string, unknown>[]).find((c) => c.type === 'DisruptionAllowed');
    assert.equal(cond?.status, 'False');
    assert.equal(cond?.reason, 'InsufficientPods');
    assert.equal((await getPod('web-1')).status, 404);
    // The next one is refused: the budget is used up.
    assert.equal((await evict('web-2')).status, 429);
  });

  it('answers a pod with two budgets with a Failure Status of code 500 (in a 201, as Kubernetes does)', async () => {
    await makePod('two', { app: 'two', tier: 'x' });
    await makeBudget('two-a', 'two', { disruptionsAllowed: 5 });
    const created = await s.request('POST', PDBS, s.admin, { metadata: { name: 'two-b' }, spec: { minAvailable: 0, selector: { matchLabels: { tier: 'x' } } } });
    assert.equal(created.status, 201);
    const r = await evict('two');
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.status, 'Failure');
    assert.equal(r.json.code, 500);
    assert.equal(r.json.message, 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
    assert.equal((await getPod('two')).status, 200);
  });

  it('evicts pending and finished pods without asking the budget', async () => {
    await makeBudget('gated', 'gated', { disruptionsAllowed: 0 });
    await makePod('gated-pending', { app: 'gated' }, 'Pending', false);
    await makePod('gated-done', { app: 'gated' }, 'Succeeded', false);
    assert.equal((await evict('gated-pending')).status, 201);
    assert.equal((await evict('gated-done')).status, 201);
    assert.equal((await getPod('gated-pending')).status, 404);
  });

  it('an unready pod: evicted under AlwaysAllow, or when the budget is met; refused otherwise', async () => {
    await makeBudget('always', 'always', { currentHealthy: 0, desiredHealthy: 1, disruptionsAllowed: 0 }, { minAvailable: 1, unhealthyPodEvictionPolicy: 'AlwaysAllow' });
    await makePod('always-1', { app: 'always' }, 'Running', false);
    assert.equal((await evict('always-1')).status, 201);
    await makeBudget('met', 'met', { currentHealthy: 1, desiredHealthy: 1, disruptionsAllowed: 0 });
    await makePod('met-1', { app: 'met' }, 'Running', false);
    assert.equal((await evict('met-1')).status, 201);
    await makeBudget('short', 'short', { currentHealthy: 0, desiredHealthy: 1, disruptionsAllowed: 0 }, { minAvailable: 1, unhealthyPodEvictionPolicy: 'IfHealthyBudget' });
    await makePod('short-1', { app: 'short' }, 'Running', false);
    assert.equal((await evict('short-1')).status, 429);
  });

  it('a budget the controller has not observed yet: 429 with Retry-After 10', async () => {
    await makePod('new-1', { app: 'new' });
    await makeBudget('new', 'new', { observedGeneration: 0, disruptionsAllowed: 3 });
    const r = await evict('new-1');
    assert.equal(r.status, 429, r.text);
    assert.equal(r.headers['retry-after'], '10');
    assert.deepEqual((r.json.details as { causes: unknown[] }).causes, [{ reason: 'DisruptionBudget', message: 'The disruption budget new is still being processed by the server.' }]);
  });

  it('a terminating pod is evicted (Success)', async () => {
    await makePod('term', { app: 'held' });
    // Bound to a node, so the delete waits for its grace period.
    await s.request('POST', `${NS}/pods/term/binding`, s.admin, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'term' }, target: { kind: 'Node', name: 'n1' } });
    const del = await s.request('DELETE', `${NS}/pods/term`, s.admin);
    assert.equal(del.status, 200, del.text);
    assert.ok((del.json.metadata as { deletionTimestamp?: string }).deletionTimestamp);
    assert.equal((await evict('term')).status, 201);
  });

  it('carries DeleteOptions: preconditions and a grace period', async () => {
    await makePod('pre', { app: 'pre' });
    const wrong = await evict('pre', eviction('pre', { deleteOptions: { preconditions: { uid: 'not-the-uid' } } }));
    assert.equal(wrong.status, 409, wrong.text);
    assert.match(String(wrong.json.message), /the UID in the precondition \(not-the-uid\) does not match the UID in record/);
    assert.equal((await getPod('pre')).status, 200);
    await s.request('POST', `${NS}/pods/pre/binding`, s.admin, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'pre' }, target: { kind: 'Node', name: 'n1' } });
    const uid = ((await getPod('pre')).json.metadata as { uid: string }).uid;
    const r = await evict('pre', eviction('pre', { deleteOptions: { gracePeriodSeconds: 7, preconditions: { uid } } }));
    assert.equal(r.status, 201, r.text);
    const pod = await getPod('pre');
    assert.equal((pod.json.metadata as { deletionGracePeriodSeconds?: number }).deletionGracePeriodSeconds, 7);
    const cond = ((pod.json.status as { conditions: Record<string, unknown>[] }).conditions ?? []).find((c) => c.type === 'DisruptionTarget');
    assert.equal(cond?.status, 'True');
    assert.equal(cond?.reason, 'EvictionByEvictionAPI');
    assert.equal(cond?.message, 'Eviction API: evicting');
  });

  it('takes a policy/v1beta1 Eviction too', async () => {
    await makePod('beta', { app: 'beta' });
    const r = await evict('beta', eviction('beta', {}, 'policy/v1beta1'));
    assert.equal(r.status, 201, r.text);
  });

  it('bad input: missing pod 404, name or namespace mismatch 400, malformed body 400, bad dryRun 422', async () => {
    const missing = await evict('nope');
    assert.equal(missing.status, 404, missing.text);
    assert.equal(missing.json.message, 'pods "nope" not found');
    await makePod('bad', { app: 'bad' });
    const name = await evict('bad', eviction('other'));
    assert.equal(name.status, 400);
    assert.equal(name.json.message, 'name in URL does not match name in Eviction object');
    const ns = await evict('bad', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'bad', namespace: 'kube-system' } });
    assert.equal(ns.status, 400);
    assert.equal(ns.json.message, 'the namespace of the provided object does not match the namespace sent on the request');
    assert.equal((await evict('bad', '{"apiVersion":')).status, 400);
    const kind = await evict('bad', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bad' } });
    assert.equal(kind.status, 400, kind.text);
    const dry = await evict('bad', eviction('bad', { deleteOptions: { dryRun: ['Some'] } }));
    assert.equal(dry.status, 422, dry.text);
    // Client keys such as __proto__ are ordinary keys: ignored, nothing polluted.
    const proto = await evict('bad', JSON.parse('{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"bad"},"deleteOptions":{"__proto__":{"dryRun":["All"]}}}'));
    assert.equal(proto.status, 201, proto.text);
    assert.equal((await getPod('bad')).status, 404);
    assert.equal(({} as Record<string, unknown>).dryRun, undefined);
  });

  it('needs the create verb on pods/eviction', async () => {
    await makePod('guarded', { app: 'guarded' });
    const who = await s.user('nobody');
    const r = await s.request('POST', `${NS}/pods/guarded/eviction`, who, eviction('guarded'));
    assert.equal(r.status, 403, r.text);
    assert.equal((await getPod('guarded')).status, 200);
  });
});
