import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JSONPathError, parseJSONPath } from './jsonpath.js';

const doc = {
  metadata: { name: 'a', labels: { 'app.kubernetes.io/name': 'x' } },
  spec: { replicas: 3, items: [1, 2, 3, 4], empty: null },
  status: {
    conditions: [
      { type: 'Progressing', status: 'True', count: 1 },
      { type: 'Ready', status: 'False', count: 5 },
    ],
  },
};

test('jsonpath finds what client-go jsonpath finds (missing keys allowed)', () => {
  const cases: [string, unknown[]][] = [
    ['.spec.replicas', [3]],
    ['{.spec.replicas}', [3]],
    ['$.spec.replicas', [3]],
    ['.spec.missing', []],
    ['.spec.replicas.deeper', []],
    ['.spec.empty', [null]],
    ['.status.conditions[0].type', ['Progressing']],
    ['.status.conditions[-1].type', ['Ready']],
    ['.status.conditions[5].type', []],
    ['.status.conditions[*].type', ['Progressing', 'Ready']],
    ['.status.conditions[?(@.type=="Ready")].status', ['False']],
    [".status.conditions[?(@.type == 'Ready')].status", ['False']],
    ['.status.conditions[?(@.type!="Ready")].type', ['Progressing']],
    ['.status.conditions[?(@.count>2)].type', ['Ready']],
    ['.status.conditions[?(@.count<=1)].type', ['Progressing']],
    ['.status.conditions[?(@.missing)].type', []],
    ['.status.conditions[?(@.count)].type', ['Progressing', 'Ready']],
    ['.spec.items[1:3]', [2, 3]],
    ['.spec.items[:2]', [1, 2]],
    ['.spec.items[-2:]', [3, 4]],
    ['.spec.items[0:4:2]', [1, 3]],
    [".metadata.labels['app.kubernetes.io/name']", ['x']],
    ['.metadata.labels.app\\.kubernetes\\.io/name', ['x']],
    ['..type', ['Progressing', 'Ready']],
    ['.metadata.*', [{ 'app.kubernetes.io/name': 'x' }, 'a']],
  ];
  for (const [path, want] of cases) assert.deepEqual(parseJSONPath(path).find(doc), want, path);
});

test('jsonpath refuses malformed paths', () => {
  for (const path of ['.a[', '.a[?(@.b=="x"]', '.a[x]', ".a['b"]) {
    assert.throws(() => parseJSONPath(path), JSONPathError, path);
  }
});

test('jsonpath treats __proto__ as an ordinary key', () => {
  const data = JSON.parse('{"spec":{"__proto__":{"x":1}}}') as unknown;
  assert.deepEqual(parseJSONPath('.spec.__proto__.x').find(data), [1]);
  assert.deepEqual(parseJSONPath('.spec.constructor').find({ spec: {} }), []);
});
