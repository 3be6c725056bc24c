import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileQuery, QueryError } from './query.js';

const pod = {
  metadata: { name: 'p', annotations: { 'pod-ready.stage.kwok.x-k8s.io/delay': '2s' }, ownerReferences: [{ kind: 'ReplicaSet' }, { kind: 'Job' }] },
  status: {
    phase: 'Running',
    conditions: [
      { type: 'Initialized', status: 'True' },
      { type: 'Ready', status: 'False' },
    ],
    containerStatuses: [{ state: { running: { startedAt: 't' } } }, { state: { waiting: {} } }],
  },
};

test('paths, members by string, iteration and select, as the KWOK stages write them', () => {
  assert.deepEqual(compileQuery('.status.phase').run(pod), ['Running']);
  assert.deepEqual(compileQuery('.metadata.deletionTimestamp').run(pod), []);
  assert.deepEqual(compileQuery('.status.conditions.[] | select( .type == "Ready" ) | .status').run(pod), ['False']);
  assert.deepEqual(compileQuery('.status.conditions[] | select(.type != "Ready") | .type').run(pod), ['Initialized']);
  assert.deepEqual(compileQuery('.metadata.ownerReferences.[].kind').run(pod), ['ReplicaSet', 'Job']);
  assert.deepEqual(compileQuery('.metadata.annotations["pod-ready.stage.kwok.x-k8s.io/delay"]').run(pod), ['2s']);
  assert.deepEqual(compileQuery('.status.containerStatuses.[].state.running.startedAt').run(pod), ['t']);
  assert.deepEqual(compileQuery('.status.conditions[0].type').run(pod), ['Initialized']);
  assert.deepEqual(compileQuery('.status.conditions[-1].type').run(pod), ['Ready']);
  assert.deepEqual(compileQuery('."status"."phase"').run(pod), ['Running']);
  assert.deepEqual(compileQuery('.').run(1), [1]);
  assert.deepEqual(compileQuery('.status.conditions[] | select(.type == "Ready" and .status == "False") | .type').run(pod), ['Ready']);
});

test('a type error yields no values (iterating null, a member of a string)', () => {
  assert.deepEqual(compileQuery('.status.conditions.[] | .status').run({ status: {} }), []);
  assert.deepEqual(compileQuery('.status.phase.x').run(pod), []);
  assert.deepEqual(compileQuery('.metadata.name[0]').run(pod), []);
});

test('keys are own properties: __proto__ and constructor are ordinary members', () => {
  const hostile = JSON.parse('{"__proto__": {"polluted": "yes"}, "a": 1}') as unknown;
  assert.deepEqual(compileQuery('.__proto__.polluted').run(hostile), ['yes']);
  assert.deepEqual(compileQuery('.constructor').run({}), []);
  assert.deepEqual(compileQuery('.toString').run({}), []);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('what is not supported is refused at compile time, naming it', () => {
  assert.throws(() => compileQuery('.a | length'), (e: unknown) => e instanceof QueryError && /"length".*not supported/.test(e.message));
  assert.throws(() => compileQuery('.a +'), QueryError);
  assert.throws(() => compileQuery('.a["x"'), QueryError);
  assert.throws(() => compileQuery('.a[1.5]'), QueryError);
  assert.throws(() => compileQuery('"unterminated'), QueryError);
  assert.throws(() => compileQuery('.'.repeat(2000)), /longer than/);
  assert.throws(() => compileQuery('select(.a'), QueryError);
});

test('a query that would explode is bounded', () => {
  const wide = { items: Array.from({ length: 1000 }, () => ({ items: Array.from({ length: 1000 }, () => 1) })) };
  // 10^6 values: over the bound, so the query yields nothing rather than hold the loop.
  assert.deepEqual(compileQuery('.items[] | .items[]').run(wide), []);
});
