import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cellValue, customResourceTable } from './table.js';

const now = new Date('2024-01-01T01:00:00Z');

test('without printer columns a version prints Name and Age', () => {
  const t = customResourceTable([]);
  assert.deepEqual(
    t.columns.map((c) => [c.name, c.type, c.format, c.priority]),
    [
      ['Name', 'string', 'name', 0],
      ['Age', 'date', '', 0],
    ],
  );
  assert.match(t.columns[1]?.description ?? '', /^CreationTimestamp is a timestamp/);
  assert.deepEqual(t.cells({ metadata: { name: 'a', creationTimestamp: '2024-01-01T00:00:00Z' } }, now), ['a', '60m']);
  assert.deepEqual(t.cells({ metadata: { name: 'a' } }, now), ['a', null]);
});

test('printer columns: definitions and cells as Kubernetes builds them', () => {
  const t = customResourceTable([
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status', description: 'ready or not', priority: 1 },
    { name: 'Size', type: 'number', format: 'float', jsonPath: '.spec.size' },
    { name: 'On', type: 'boolean', jsonPath: '.spec.on' },
  ]);
  assert.deepEqual(
    t.columns.map((c) => [c.name, c.type, c.format, c.description, c.priority]),
    [
      ['Name', 'string', 'name', t.columns[0]?.description, 0],
      ['Replicas', 'integer', '', 'Custom resource definition column (in JSONPath format): .spec.replicas', 0],
      ['Ready', 'string', '', 'ready or not', 1],
      ['Size', 'number', 'float', 'Custom resource definition column (in JSONPath format): .spec.size', 0],
      ['On', 'boolean', '', 'Custom resource definition column (in JSONPath format): .spec.on', 0],
    ],
  );
  const obj = { metadata: { name: 'w' }, spec: { replicas: 2.7, size: 3, on: 'yes' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } };
  assert.deepEqual(t.cells(obj, now), ['w', 2, 'True', 3, null]);
  assert.deepEqual(t.cells({ metadata: { name: 'x' } }, now), ['x', null, null, null, null]);
});

test('cell values by column type', () => {
  const cases: [string, unknown, unknown][] = [
    ['string', 'abc', 'abc'],
    ['string', 3, '3'],
    ['string', 1.5, '1.5'],
    ['string', 1234567.5, '1.2345675e+06'],
    ['string', 0.00001, '1e-05'],
    ['string', true, 'true'],
    ['string', null, '<no value>'],
    ['string', { b: 1, a: '<x>' }, '{"a":"\\u003cx\\u003e","b":1}'],
    ['string', [1, 'a'], '[1,"a"]'],
    ['integer', 5, 5],
    ['integer', -2.5, -2],
    ['integer', '5', null],
    ['integer', 12345678901234567890n, 12345678901234567890n],
    ['number', 2, 2],
    ['number', 'x', null],
    ['boolean', false, false],
    ['boolean', 'true', null],
    ['date', '2024-01-01T00:59:30Z', '30s'],
    ['date', '2023-12-30T01:00:00.5+00:00', '47h'],
    ['date', 'yesterday', '<invalid>'],
    ['date', '', '<unknown>'],
    ['date', 5, null],
    ['integer', null, null],
  ];
  for (const [type, value, want] of cases) assert.deepEqual(cellValue(type, value, now), want, `${type} ${String(value)}`);
});
