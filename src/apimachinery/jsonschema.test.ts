import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalSchema, servedSchema } from './jsonschema.js';
import { setFlavor } from '../naming/index.js';

test('canonicalSchema renames the flavor extension keys of schema nodes only', () => {
  setFlavor('orch');
  try {
    const served = {
      type: 'object',
      'x-orch-preserve-unknown-fields': true,
      properties: {
        'x-orch-name': { type: 'string', default: { 'x-orch-list-type': 'kept' } },
        list: { type: 'array', 'x-orch-list-type': 'map', 'x-orch-list-map-keys': ['k'], items: { type: 'object', 'x-orch-map-type': 'atomic' } },
      },
      anyOf: [{ 'x-orch-int-or-string': true }],
    };
    const canonical = canonicalSchema(served);
    assert.deepEqual(canonical, {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: {
        'x-orch-name': { type: 'string', default: { 'x-orch-list-type': 'kept' } },
        list: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'object', 'x-kubernetes-map-type': 'atomic' } },
      },
      anyOf: [{ 'x-kubernetes-int-or-string': true }],
    });
    assert.deepEqual(servedSchema(canonical), served);
  } finally {
    setFlavor('orch');
  }
});

test('canonicalSchema keeps a __proto__ property name as an own key', () => {
  const canonical = canonicalSchema(JSON.parse('{"properties":{"__proto__":{"type":"string"}}}'));
  assert.ok(Object.hasOwn(canonical.properties ?? {}, '__proto__'));
  assert.equal(Object.getPrototypeOf(canonical.properties), Object.prototype);
});
