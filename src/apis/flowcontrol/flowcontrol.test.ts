import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/types.js';
import { definitionOf, strategyOf } from '../testing.js';

const G = 'flowcontrol.apiserver.orch.io';

describe('flowcontrol v1beta2 <-> v1beta3', () => {
  const plc = definitionOf(G, 'prioritylevelconfigurations', 'v1beta2').conversion;
  const fs = definitionOf(G, 'flowschemas', 'v1beta2').conversion;

  it('renames assuredConcurrencyShares to nominalConcurrencyShares', () => {
    assert.ok(plc);
    const v1beta2: KubeObject = {
      apiVersion: `${G}/v1beta2`,
      kind: 'PriorityLevelConfiguration',
      metadata: { name: 'workload' },
      spec: { type: 'Limited', limited: { assuredConcurrencyShares: 20, lendablePercent: 10, limitResponse: { type: 'Reject' } } },
    };
    const stored = plc.toStorage(v1beta2);
    assert.deepEqual(stored, {
      apiVersion: `${G}/v1beta3`,
      kind: 'PriorityLevelConfiguration',
      metadata: { name: 'workload' },
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: 20, lendablePercent: 10, limitResponse: { type: 'Reject' } } },
    });
    assert.deepEqual(plc.fromStorage(stored), v1beta2);
    const exempt: KubeObject = { apiVersion: `${G}/v1beta3`, kind: 'PriorityLevelConfiguration', metadata: { name: 'exempt' }, spec: { type: 'Exempt' } };
    assert.deepEqual(plc.toStorage(plc.fromStorage(exempt)), exempt);
  });

  it('keeps flow schemas as they are', () => {
    assert.ok(fs);
    const v1beta3: KubeObject = { apiVersion: `${G}/v1beta3`, kind: 'FlowSchema', metadata: { name: 'x' }, spec: { matchingPrecedence: 500, priorityLevelConfiguration: { name: 'workload' } } };
    const served = fs.fromStorage(v1beta3);
    assert.equal(served.apiVersion, `${G}/v1beta2`);
    assert.deepEqual(fs.toStorage(served), v1beta3);
  });

  it('defaults precedence and queuing', () => {
    const f: KubeObject = { metadata: { name: 'f' }, spec: { priorityLevelConfiguration: { name: 'p' } } };
    strategyOf(G, 'flowschemas').defaults(f);
    assert.equal((f.spec as Record<string, unknown>).matchingPrecedence, 1000);
    const p: KubeObject = { metadata: { name: 'p' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue' } } } };
    strategyOf(G, 'prioritylevelconfigurations').defaults(p);
    assert.deepEqual((p.spec as Record<string, unknown>).limited, {
      nominalConcurrencyShares: 30,
      lendablePercent: 0,
      limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } },
    });
  });
});
