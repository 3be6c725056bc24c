// The audit filter end to end: a policy, the whole filter chain over HTTPS, and the events a
// backend receives.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Auditor, AuditMetrics, parsePolicy } from '../audit/index.js';
import type { AuditBackend } from '../audit/index.js';
import type { EventSnapshot } from '../audit/backend.js';
import { setFlavor } from '../naming/index.js';
import { startTestServer, type TestServer } from '../testing/api-server.js';
import { eventually } from '../testing/wait.js';

setFlavor('orch');

type Ev = Record<string, unknown> & {
  auditID: string;
  stage: string;
  level: string;
  verb: string;
  user: { username: string };
  objectRef?: Record<string, string>;
  responseStatus?: { code: number; reason?: string; message?: string; status?: string };
  requestObject?: Record<string, unknown>;
  responseObject?: Record<string, unknown>;
  annotations?: Record<string, string>;
  impersonatedUser?: { username: string };
};

class MemoryBackend implements AuditBackend {
  readonly name = 'memory';
  events: Ev[] = [];
  processEvents(events: EventSnapshot[]): boolean {
    for (const e of events) this.events.push(JSON.parse(e.toJSON()) as Ev);
    return true;
  }
  async shutdown(): Promise<void> {}
  of(id: string): Ev[] {
    return this.events.filter((e) => e.auditID === id);
  }
}

const POLICY = `
apiVersion: audit.orch.io/v1
kind: Policy
rules:
  - level: None
    nonResourceURLs: ["/healthz*"]
  - level: RequestResponse
    omitManagedFields: true
    resources: [{group: "", resources: ["configmaps"]}]
    namespaces: ["full"]
  - level: Request
    omitStages: [RequestReceived]
    resources: [{group: "", resources: ["configmaps"]}]
    namespaces: ["req"]
  - level: Metadata
`;

describe('audit filter', () => {
  let srv: TestServer;
  const backend = new MemoryBackend();
  const metrics = new AuditMetrics();
  before(async () => {
    srv = await startTestServer({ auditor: new Auditor(parsePolicy(POLICY), backend, metrics, false) });
  });
  after(() => srv.close());

  const cm = (name: string, data: Record<string, string> = { k: 'v' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
  const idOf = (headers: Record<string, string | string[] | undefined>): string => String(headers['audit-id']);

  it('answers every request with an Audit-Id, and keeps the one the client sends', async () => {
    const a = await srv.request('GET', '/healthz');
    assert.match(idOf(a.headers), /^[0-9a-f-]{36}$/);
    assert.equal(backend.of(idOf(a.headers)).length, 0, 'the policy does not audit /healthz');
    const b = await srv.request('GET', '/api/v1/namespaces/default/configmaps', { headers: { 'Audit-ID': 'my-trace-1' } });
    assert.equal(b.headers['audit-id'], 'my-trace-1');
    const events = backend.of('my-trace-1');
    assert.deepEqual(events.map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
  });

  it('records a create at Metadata: who, what, the outcome; no bodies', async () => {
    const r = await srv.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('meta', { password: 's3cret' }), headers: { 'User-Agent': 'audit-test/1.0' } });
    assert.equal(r.status, 201);
    const events = backend.of(idOf(r.headers));
    assert.deepEqual(events.map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
    const done = events[1]!;
    assert.equal(done.level, 'Metadata');
    assert.equal(done.verb, 'create');
    assert.equal(done.user.username, 'admin');
    assert.equal(done.userAgent, 'audit-test/1.0');
    assert.deepEqual(done.sourceIPs, ['127.0.0.1']);
    assert.equal(done.requestURI, '/api/v1/namespaces/default/configmaps');
    assert.deepEqual(done.objectRef, { resource: 'configmaps', namespace: 'default', name: 'meta', apiVersion: 'v1' });
    assert.deepEqual(done.responseStatus, { metadata: {}, code: 201 });
    assert.equal(done.requestObject, undefined);
    assert.equal(done.responseObject, undefined);
    assert.equal(done.annotations?.['authorization.orch.io/decision'], 'allow');
    assert.ok(!JSON.stringify(events).includes('s3cret'), 'no data at Metadata level');
    assert.deepEqual(Object.keys(done), ['kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user', 'sourceIPs', 'userAgent', 'objectRef', 'responseStatus', 'requestReceivedTimestamp', 'stageTimestamp', 'annotations']);
    assert.match(String(done.requestReceivedTimestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.ok(String(done.stageTimestamp) >= String(done.requestReceivedTimestamp));
  });

  it('records bodies at RequestResponse, without managed fields when the rule says so', async () => {
    const r = await srv.request('POST', '/api/v1/namespaces/full/configmaps?fieldManager=tester', { body: cm('full', { answer: '42' }) });
    assert.equal(r.status, 201);
    const done = backend.of(idOf(r.headers)).at(-1)!;
    assert.equal(done.level, 'RequestResponse');
    assert.deepEqual((done.requestObject as { data: unknown }).data, { answer: '42' });
    const resp = done.responseObject as { metadata: Record<string, unknown>; data: unknown };
    assert.deepEqual(resp.data, { answer: '42' });
    assert.ok(resp.metadata.uid, 'the stored object');
    assert.equal(resp.metadata.managedFields, undefined);
    assert.ok((r.json().metadata as { managedFields?: unknown }).managedFields, 'the client still gets them');
    assert.equal(done.objectRef?.uid, undefined, 'a create names no uid yet');
  });

  it('omits the stages the rule omits; Request level keeps the request body only', async () => {
    const r = await srv.request('POST', '/api/v1/namespaces/req/configmaps', { body: cm('req') });
    const events = backend.of(idOf(r.headers));
    assert.deepEqual(events.map((e) => e.stage), ['ResponseComplete']);
    assert.ok(events[0]!.requestObject);
    assert.equal(events[0]!.responseObject, undefined);
  });

  it('records a failure with its Status', async () => {
    const r = await srv.request('GET', '/api/v1/namespaces/default/configmaps/missing');
    assert.equal(r.status, 404);
    const done = backend.of(idOf(r.headers)).at(-1)!;
    assert.equal(done.stage, 'ResponseComplete');
    assert.equal(done.responseStatus?.code, 404);
    assert.equal(done.responseStatus?.reason, 'NotFound');
    assert.equal(done.responseStatus?.status, 'Failure');
    assert.equal(done.responseStatus?.message, 'configmaps "missing" not found');
  });

  it('records a denied request with the decision', async () => {
    const r = await srv.request('GET', '/api/v1/namespaces/default/configmaps', { as: 'denied' });
    assert.equal(r.status, 403);
    const done = backend.of(idOf(r.headers)).at(-1)!;
    assert.equal(done.user.username, 'denied-user');
    assert.equal(done.annotations?.['authorization.orch.io/decision'], 'forbid');
    assert.equal(done.responseStatus?.code, 403);
  });

  it('records a request that fails authentication once, at ResponseStarted', async () => {
    const r = await srv.request('GET', '/api/v1/namespaces/default/configmaps', { as: 'anonymous', headers: { Authorization: 'Bearer nope' } });
    assert.equal(r.status, 401);
    const events = backend.of(idOf(r.headers));
    assert.equal(events.length, 1);
    assert.equal(events[0]!.stage, 'ResponseStarted');
    assert.deepEqual(events[0]!.user, { username: '' });
    assert.deepEqual(events[0]!.responseStatus, { metadata: {}, message: 'Authentication failed, attempted: bearer', code: 401 });
  });

  it('records a watch when it starts answering and when it ends', async () => {
    const id = 'watch-trace';
    const w = srv.stream('/api/v1/namespaces/default/configmaps?watch=true', () => {}, { 'Audit-ID': id });
    await eventually(() => backend.of(id).some((e) => e.stage === 'ResponseStarted'), 'ResponseStarted');
    assert.deepEqual(backend.of(id).map((e) => e.stage), ['RequestReceived', 'ResponseStarted']);
    assert.equal(backend.of(id)[1]!.responseStatus?.code, 200);
    w.close();
    await eventually(() => backend.of(id).some((e) => e.stage === 'ResponseComplete'), 'ResponseComplete');
    assert.equal(backend.of(id).at(-1)!.verb, 'watch');
  });

  it('counts events and levels in /metrics', async () => {
    const m = await srv.request('GET', '/metrics');
    assert.match(m.body, /apiserver_audit_event_total \d+/);
    assert.match(m.body, /apiserver_audit_level_total\{level="Metadata"\} \d+/);
    assert.match(m.body, /apiserver_audit_level_total\{level="None"\} \d+/);
    assert.equal(await metrics.value('event'), backend.events.length);
  });
});

describe('audit ID without auditing', () => {
  it('is sent even when nothing is audited', async () => {
    const srv = await startTestServer();
    try {
      const r = await srv.request('GET', '/api/v1/namespaces', { headers: { 'Audit-ID': 'abc' } });
      assert.equal(r.headers['audit-id'], 'abc');
      const s = await srv.request('GET', '/api/v1/namespaces');
      assert.match(String(s.headers['audit-id']), /^[0-9a-f-]{36}$/);
    } finally {
      await srv.close();
    }
  });
});

describe('audit of failures inside the server', () => {
  it('records Panic, not ResponseComplete, when a handler fails with an internal error', async () => {
    const backend = new MemoryBackend();
    const srv = await startTestServer({
      auditor: new Auditor(parsePolicy(POLICY), backend, new AuditMetrics(), false),
      nonResource: async () => {
        throw new Error('boom');
      },
    });
    try {
      const r = await srv.request('GET', '/custom/thing', { headers: { 'Audit-ID': 'panic-1' } });
      assert.equal(r.status, 500);
      const events = backend.of('panic-1');
      assert.deepEqual(events.map((e) => e.stage), ['RequestReceived', 'Panic']);
      assert.deepEqual(events[1]!.responseStatus, { metadata: {}, status: 'Failure', message: "APIServer panic'd: boom", reason: 'InternalError', code: 500 });
    } finally {
      await srv.close();
    }
  });

  it('blocking-strict: a backend that cannot record the first stage fails the request', async () => {
    const failing: AuditBackend = { name: 'log', processEvents: () => false, shutdown: async () => {} };
    const metrics = new AuditMetrics();
    const srv = await startTestServer({ auditor: new Auditor(parsePolicy(POLICY), failing, metrics, true) });
    try {
      const r = await srv.request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'strict' } } });
      assert.equal(r.status, 500);
      assert.match(r.body, /failed to store audit event/);
      assert.equal(await metrics.value('rejected'), 1);
      const get = await srv.request('GET', '/api/v1/namespaces/default/configmaps/strict');
      assert.equal(get.status, 500, 'reads are refused too');
    } finally {
      await srv.close();
    }
  });

  it('blocking (not strict): the same failure leaves requests alone', async () => {
    const failing: AuditBackend = { name: 'log', processEvents: () => false, shutdown: async () => {} };
    const srv = await startTestServer({ auditor: new Auditor(parsePolicy(POLICY), failing, new AuditMetrics(), false) });
    try {
      const r = await srv.request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'lenient' } } });
      assert.equal(r.status, 201);
    } finally {
      await srv.close();
    }
  });
});
