import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeName, schemaType } from './types.js';

test('property names are escaped as Kubernetes escapes them', () => {
  const cases: [string, string | undefined][] = [
    ['plain', 'plain'],
    ['namespace', '__namespace__'],
    ['in', '__in__'],
    ['a-b', 'a__dash__b'],
    ['a.b', 'a__dot__b'],
    ['a/b', 'a__slash__b'],
    ['a__b', 'a__underscores__b'],
    ['1a', undefined],
    ['a b', undefined],
  ];
  for (const [name, want] of cases) assert.equal(escapeName(name), want, name);
});

test('schema nodes map to CEL types', () => {
  assert.deepEqual(schemaType({ type: 'string', maxLength: 5 }, false), { kind: 'string', max: 5 });
  assert.equal(schemaType({ 'x-kubernetes-int-or-string': true }, false).kind, 'dyn');
  assert.equal(schemaType({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, false).kind, 'dyn');
  assert.equal(schemaType({ type: 'object', additionalProperties: { type: 'integer' } }, false).kind, 'map');
  const rootT = schemaType({ type: 'object', properties: { spec: { type: 'object' } } }, true);
  assert.ok(rootT.kind === 'object' && rootT.fields.has('apiVersion') && rootT.fields.has('metadata'));
  const list = schemaType({ type: 'array', items: { type: 'integer' } }, false);
  assert.ok(list.kind === 'list' && list.max === Math.floor((3 * 1024 * 1024 - 2) / 2));
});
