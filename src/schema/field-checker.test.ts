import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../apimachinery/errors.js';
import { createFieldChecker } from './field-checker.js';

const cm = { group: '', version: 'v1', kind: 'ConfigMap' };

test('finds duplicates in the body text only when the level reports them', () => {
  const check = createFieldChecker();
  const text = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","name":"d"},"bogus":1}';
  const body = new TextEncoder().encode(text);
  const warn = JSON.parse(text) as Record<string, unknown>;
  assert.deepEqual(check(body, warn, cm, 'Warn', 'application/json'), ['duplicate field "metadata.name"', 'unknown field "bogus"']);
  assert.equal('bogus' in warn, false);
  const ignore = JSON.parse(text) as Record<string, unknown>;
  assert.deepEqual(check(body, ignore, cm, 'Ignore', 'application/json'), []);
  assert.equal('bogus' in ignore, false);
  // YAML bodies have no JSON text to scan; unknown fields are still found.
  assert.deepEqual(check(body, JSON.parse(text) as Record<string, unknown>, cm, 'Warn', 'application/yaml'), ['unknown field "bogus"']);
  assert.throws(() => check(body, JSON.parse(text) as Record<string, unknown>, cm, 'Strict', 'application/json; charset=utf-8'), (e: unknown) => {
    return e instanceof ApiError && e.code === 400 && e.message.endsWith('strict decoding error: duplicate field "metadata.name", unknown field "bogus"');
  });
});

test('required fields are left to the strategy unless asked to reject', () => {
  const pod = { group: '', version: 'v1', kind: 'Pod' };
  const obj = () => ({ metadata: { name: 'p' }, spec: { containers: [{ image: 'x' }] } });
  const body = new TextEncoder().encode(JSON.stringify(obj()));
  assert.deepEqual(createFieldChecker()(body, obj(), pod, 'Strict', 'application/json'), []);
  assert.throws(() => createFieldChecker({ required: 'reject' })(body, obj(), pod, 'Strict', 'application/json'), (e: unknown) => {
    return e instanceof ApiError && e.code === 422 && e.message === 'Pod "p" is invalid: spec.containers[0].name: Required value';
  });
});
