// The endpoint controllers' pure pieces on odd input.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findPort, selectedPods, serviceSelector } from './util.js';

test('a selector key named __proto__ is an ordinary key: it selects only pods carrying it', () => {
  const svc = { metadata: { namespace: 'default' }, spec: JSON.parse('{"selector":{"__proto__":"x","app":"a"}}') as Record<string, unknown> };
  assert.deepEqual(Object.keys(serviceSelector(svc) ?? {}).sort(), ['__proto__', 'app']);
  const plain = { metadata: { namespace: 'default', labels: { app: 'a' } } };
  const carrying = { metadata: { namespace: 'default', labels: JSON.parse('{"__proto__":"x","app":"a"}') as Record<string, string> } };
  assert.deepEqual(selectedPods(svc, [plain, carrying]), [carrying]);
});

test('selectors and ports of the wrong shape select nothing and resolve nothing', () => {
  for (const selector of [null, [], 'app=a', { app: 1 }, {}]) assert.equal(serviceSelector({ spec: { selector } }), undefined, JSON.stringify(selector));
  const pod = { spec: { containers: [{ ports: [{ name: 'http', containerPort: 'x' }, null] }, null] } };
  assert.equal(findPort(pod, { port: 80, protocol: 'TCP', targetPort: 'http' }), undefined);
  assert.equal(findPort(pod, { port: 80, protocol: 'TCP', targetPort: 'toString' }), undefined);
  assert.equal(findPort(pod, { port: 80, protocol: 'TCP' }), 80);
});
