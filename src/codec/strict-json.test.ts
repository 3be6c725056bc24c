import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findDuplicateKeys, parseJsonWithDuplicates } from './strict-json.js';

test('reports duplicate keys with their paths in document order', () => {
  const text = `{
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "a", "name": "b", "labels": {"app": "x"}},
    "spec": {"paused": true, "paused": false,
      "template": {"spec": {"containers": [{"name": "c"}, {"name": "d", "image": "i", "image": "j"}]}}}
  }`;
  const { value, duplicates } = parseJsonWithDuplicates(text);
  assert.deepEqual(duplicates, ['metadata.name', 'spec.paused', 'spec.template.spec.containers[1].image']);
  assert.deepEqual((value as { metadata: { name: string } }).metadata.name, 'b');
});

test('keys in different objects are not duplicates; strings that look like keys are ignored', () => {
  assert.deepEqual(findDuplicateKeys('{"a":{"x":1},"b":{"x":2},"c":["a","a"],"d":"\\"a\\":"}'), []);
  assert.deepEqual(findDuplicateKeys('[{"a":1,"a":2},[{"b":1,"b":1}]]'), ['[0].a', '[1][0].b']);
});

test('escaped keys are compared by their decoded value', () => {
  assert.deepEqual(findDuplicateKeys('{"a\\u0062":1,"ab":2,"q\\"":1,"q\\"":2,"s\\\\":1,"s\\\\":3}'), ['ab', 'q"', 's\\']);
});

test('objects with many keys switch to a set and still find duplicates', () => {
  const keys = Array.from({ length: 200 }, (_, i) => `"k${i}":${i}`);
  keys.push('"k7":0');
  assert.deepEqual(findDuplicateKeys(`{"data":{${keys.join(',')}}}`), ['data.k7']);
});

test('invalid JSON throws as JSON.parse does', () => {
  assert.throws(() => parseJsonWithDuplicates('{"a":'), SyntaxError);
});

test('scalars and empty containers have no duplicates', () => {
  for (const t of ['1', '"x"', 'null', '{}', '[]', '{"a":[]}']) assert.deepEqual(parseJsonWithDuplicates(t).duplicates, []);
});
