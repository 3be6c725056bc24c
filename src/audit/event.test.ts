import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlavor } from '../naming/index.js';
import { encodeEvent, encodeEventList, legacyEventString, microTime, sourceIPs } from './event.js';
import type { AuditEvent } from './types.js';

setFlavor('kubernetes');

const base = (): AuditEvent => ({
  level: 'Metadata',
  auditID: 'a1',
  stage: 'ResponseComplete',
  requestURI: '/api/v1/namespaces/default/pods?limit=1',
  verb: 'list',
  user: { username: 'alice', groups: ['dev', 'system:authenticated'] },
  sourceIPs: ['10.0.0.1'],
  userAgent: 'kubectl/v1.27.0',
  objectRef: { resource: 'pods', namespace: 'default', apiVersion: 'v1' },
  responseStatus: { code: 200 },
  requestReceivedTimestamp: Date.UTC(2024, 0, 2, 3, 4, 5) * 1000 + 123456,
  stageTimestamp: Date.UTC(2024, 0, 2, 3, 4, 5) * 1000 + 200000,
});

describe('audit events', () => {
  it("writes Go's field order and omits empty fields", () => {
    const ev = base();
    ev.annotations = new Map([
      ['z/last', '1'],
      ['authorization.k8s.io/decision', 'allow'],
    ]);
    ev.user.extra = { 'b-key': ['2'], 'a-key': ['1'] };
    assert.equal(
      encodeEvent(ev),
      '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a1","stage":"ResponseComplete",' +
        '"requestURI":"/api/v1/namespaces/default/pods?limit=1","verb":"list",' +
        '"user":{"username":"alice","groups":["dev","system:authenticated"],"extra":{"a-key":["1"],"b-key":["2"]}},' +
        '"sourceIPs":["10.0.0.1"],"userAgent":"kubectl/v1.27.0",' +
        '"objectRef":{"resource":"pods","namespace":"default","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},' +
        '"requestReceivedTimestamp":"2024-01-02T03:04:05.123456Z","stageTimestamp":"2024-01-02T03:04:05.200000Z",' +
        '"annotations":{"authorization.k8s.io/decision":"allow","z/last":"1"}}',
    );
  });

  it('keeps the user object when the user is unknown, and carries request and response objects as JSON', () => {
    const ev = { ...base(), user: { username: '' }, sourceIPs: [], userAgent: '', objectRef: undefined, responseStatus: undefined };
    ev.requestObject = '{"kind":"Pod"}';
    const doc = JSON.parse(encodeEvent(ev)) as Record<string, unknown>;
    assert.deepEqual(doc.user, { username: '' });
    assert.deepEqual(doc.requestObject, { kind: 'Pod' });
    assert.deepEqual(Object.keys(doc), ['kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user', 'requestObject', 'requestReceivedTimestamp', 'stageTimestamp']);
  });

  it('writes a Status as metav1.Status', () => {
    const ev = { ...base(), responseStatus: { code: 404, status: 'Failure', reason: 'NotFound', message: 'pods "x" not found', details: { name: 'x', kind: 'pods' } } };
    assert.match(encodeEvent(ev), /"responseStatus":\{"metadata":\{\},"status":"Failure","message":"pods \\"x\\" not found","reason":"NotFound","details":\{"name":"x","kind":"pods"\},"code":404\}/);
  });

  it('an EventList wraps encoded events', () => {
    const list = JSON.parse(encodeEventList([encodeEvent(base()), encodeEvent(base())])) as { kind: string; apiVersion: string; items: unknown[] };
    assert.equal(list.kind, 'EventList');
    assert.equal(list.apiVersion, 'audit.k8s.io/v1');
    assert.equal(list.items.length, 2);
  });

  it('MicroTime has six fractional digits', () => {
    assert.equal(microTime(Date.UTC(2024, 0, 1) * 1000), '2024-01-01T00:00:00.000000Z');
    assert.equal(microTime(Date.UTC(2024, 0, 1) * 1000 + 7), '2024-01-01T00:00:00.000007Z');
  });

  it('writes the legacy line as kube-apiserver does', () => {
    const ev = base();
    ev.impersonatedUser = { username: 'bob', groups: ['g'] };
    assert.equal(
      legacyEventString(ev),
      '2024-01-02T03:04:05.123456Z AUDIT: id="a1" stage="ResponseComplete" ip="10.0.0.1" method="list" user="alice" groups="\\"dev\\",\\"system:authenticated\\"" ' +
        'as="bob" asgroups="\\"g\\"" user-agent="kubectl/v1.27.0" namespace="default" uri="/api/v1/namespaces/default/pods?limit=1" response="200"',
    );
    const bare = { ...base(), user: { username: '' }, sourceIPs: [], objectRef: undefined, responseStatus: undefined, requestURI: '/a\nb' };
    assert.match(legacyEventString(bare), /ip="<unknown>" method="list" user="<none>" groups="<none>" as="<self>" asgroups="<lookup>" .* namespace="<none>" uri="\/a\\nb" response="<deferred>"$/);
  });

  it('lists source IPs as kube-apiserver does', () => {
    assert.deepEqual(sourceIPs(undefined, undefined, '::ffff:127.0.0.1'), ['127.0.0.1']);
    assert.deepEqual(sourceIPs('1.2.3.4, bogus, 5.6.7.8', '9.9.9.9', '10.0.0.1'), ['1.2.3.4', '5.6.7.8', '9.9.9.9', '10.0.0.1']);
    assert.deepEqual(sourceIPs('1.2.3.4', '1.2.3.4', '1.2.3.4'), ['1.2.3.4']);
    assert.deepEqual(sourceIPs(undefined, undefined, '::1'), ['::1']);
    assert.deepEqual(sourceIPs('999.1.1.1,<script>', 'x', undefined), []);
  });
});
