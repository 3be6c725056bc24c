import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/types.js';
import { definitionOf, strategyOf } from '../../testing/apis.js';
import { mandatoryPriorityLevelSpecs } from './validation.js';
import { mandatoryPriorityLevels, suggestedPriorityLevels } from '../../flowcontrol/bootstrap.js';

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

  it('defaults precedence and queuing; zero is unset, as in Go; a missing queuing section stays missing', () => {
    const f: KubeObject = { metadata: { name: 'f' }, spec: { matchingPrecedence: 0, priorityLevelConfiguration: { name: 'p' } } };
    strategyOf(G, 'flowschemas').defaults(f);
    assert.equal((f.spec as Record<string, unknown>).matchingPrecedence, 1000);
    const p: KubeObject = { metadata: { name: 'p' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Queue', queuing: { handSize: 0 } } } } };
    strategyOf(G, 'prioritylevelconfigurations').defaults(p);
    assert.deepEqual((p.spec as Record<string, unknown>).limited, {
      nominalConcurrencyShares: 30,
      lendablePercent: 0,
      limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } },
    });
    const bare: KubeObject = { metadata: { name: 'p' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue' } } } };
    strategyOf(G, 'prioritylevelconfigurations').defaults(bare);
    assert.deepEqual((bare.spec as Record<string, unknown>).limited, { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: 'Queue' } });
  });
});

describe('PriorityLevelConfiguration validation (1.27)', () => {
  const strategy = strategyOf(G, 'prioritylevelconfigurations');
  const v1beta2 = definitionOf(G, 'prioritylevelconfigurations', 'v1beta2');
  const plc = (name: string, spec: Record<string, unknown>, status?: Record<string, unknown>): KubeObject => {
    const o: KubeObject = { apiVersion: `${G}/v1beta3`, kind: 'PriorityLevelConfiguration', metadata: { name }, spec, ...(status ? { status } : {}) };
    strategy.defaults(o);
    return o;
  };
  const errors = (o: KubeObject, s = strategy): string[] => s.validate(o).map((e) => `${e.field}: ${e.detail}`);
  const queue = (queuing: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'Limited', limited: { ...extra, limitResponse: { type: 'Queue', queuing } } });

  it('accepts the bootstrap configuration the server writes', () => {
    for (const [name, spec] of Object.entries(mandatoryPriorityLevelSpecs())) assert.deepEqual(errors(plc(name, spec)), [], name);
    for (const o of [...mandatoryPriorityLevels(), ...suggestedPriorityLevels()]) {
      const copy = structuredClone(o);
      strategy.defaults(copy);
      assert.deepEqual(errors(copy), [], o.metadata?.name);
    }
    assert.deepEqual(errors(plc('workload-high', queue({ queues: 128, handSize: 6, queueLengthLimit: 50 }, { nominalConcurrencyShares: 40, lendablePercent: 50 }))), []);
  });

  it('keeps the type and the limited section consistent, and the exempt name for the Exempt type', () => {
    assert.deepEqual(errors(plc('p', { type: 'Exempt' })), ['spec.type: Invalid value: "Exempt": type must be \'Exempt\' if and only if name is \'exempt\'']);
    assert.deepEqual(errors(plc('p', { type: 'Limited' })), ['spec.limited: Required value: must not be empty when type is Limited']);
    assert.deepEqual(errors(plc('p', {})), ['spec.type: Unsupported value: "": supported values: "Exempt", "Limited"']);
    assert.deepEqual(errors(plc('exempt', { type: 'Exempt', limited: { limitResponse: { type: 'Reject' } } })), [
      'spec.limited: Forbidden: must be nil if the type is not Limited',
      "spec: Invalid value: flowcontrol.PriorityLevelConfigurationSpec{Type:\"Exempt\", Limited:(*flowcontrol.LimitedPriorityLevelConfiguration)(0xc000000000)}: spec of 'exempt' must equal the fixed value",
    ]);
    assert.deepEqual(errors(plc('catch-all', { type: 'Limited', limited: { nominalConcurrencyShares: 500, limitResponse: { type: 'Reject' } } })), [
      "spec: Invalid value: flowcontrol.PriorityLevelConfigurationSpec{Type:\"Limited\", Limited:(*flowcontrol.LimitedPriorityLevelConfiguration)(0xc000000000)}: spec of 'catch-all' must equal the fixed value",
    ]);
  });

  it('checks shares, percentages and the limit response', () => {
    assert.deepEqual(errors(plc('p', { type: 'Limited', limited: { nominalConcurrencyShares: -1, lendablePercent: 101, borrowingLimitPercent: -5, limitResponse: { type: 'Drop' } } })), [
      'spec.limited.nominalConcurrencyShares: Invalid value: -1: must be positive',
      'spec.limited.limitResponse.type: Unsupported value: "Drop": supported values: "Queue", "Reject"',
      'spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive',
      'spec.limited.borrowingLimitPercent: Invalid value: -5: if specified, must be a non-negative integer',
    ]);
    assert.deepEqual(errors(plc('p', { type: 'Limited', limited: { lendablePercent: -1, borrowingLimitPercent: 1000, limitResponse: { type: 'Reject', queuing: { queues: 1 } } } })), [
      'spec.limited.limitResponse.queuing: Forbidden: must be nil if limited.limitResponse.type is not Limited',
      'spec.limited.lendablePercent: Invalid value: -1: must be between 0 and 100, inclusive',
    ]);
    assert.deepEqual(errors(plc('p', { type: 'Limited', limited: { limitResponse: { type: 'Queue' } } })), ['spec.limited.limitResponse.queuing: Required value: must not be empty if limited.limitResponse.type is Limited']);
  });

  it('checks queuing: positive numbers, at most 10^7 queues, a hand no larger than the deck and within 60 bits', () => {
    assert.deepEqual(errors(plc('p', queue({ queues: -1, handSize: -2, queueLengthLimit: -3 }))), [
      'spec.limited.limitResponse.queuing.queueLengthLimit: Invalid value: -3: must be positive',
      'spec.limited.limitResponse.queuing.queues: Invalid value: -1: must be positive',
      'spec.limited.limitResponse.queuing.handSize: Invalid value: -2: must be positive',
    ]);
    assert.deepEqual(errors(plc('p', queue({ queues: 10_000_001, handSize: 2 }))), ['spec.limited.limitResponse.queuing.queues: Invalid value: 10000001: must not be greater than 10000000']);
    assert.deepEqual(errors(plc('p', queue({ queues: 4, handSize: 5 }))), ['spec.limited.limitResponse.queuing.handSize: Invalid value: 5: should not be greater than queues (4)']);
    assert.deepEqual(errors(plc('p', queue({ queues: -1, handSize: 2 }))), [
      'spec.limited.limitResponse.queuing.queues: Invalid value: -1: must be positive',
      'spec.limited.limitResponse.queuing.handSize: Invalid value: 2: should not be greater than queues (-1)',
    ]);
    // log2(128) * 9 = 63 bits; log2(128) * 8 = 56 bits; log2(1000) * 6 = 59.8, rounded up to 60.
    assert.deepEqual(errors(plc('p', queue({ queues: 128, handSize: 9 }))), ['spec.limited.limitResponse.queuing.handSize: Invalid value: 9: required entropy bits of deckSize 128 and handSize 9 should not be greater than 60']);
    assert.deepEqual(errors(plc('p', queue({ queues: 128, handSize: 8 }))), []);
    assert.deepEqual(errors(plc('p', queue({ queues: 1000, handSize: 6 }))), []);
    assert.deepEqual(errors(plc('p', queue({ queues: 1000, handSize: 7 }))), ['spec.limited.limitResponse.queuing.handSize: Invalid value: 7: required entropy bits of deckSize 1000 and handSize 7 should not be greater than 60']);
  });

  it('names the shares assuredConcurrencyShares for a v1beta2 request', () => {
    const s = v1beta2.strategy!;
    const stored = v1beta2.conversion!.toStorage({ apiVersion: `${G}/v1beta2`, kind: 'PriorityLevelConfiguration', metadata: { name: 'p' }, spec: { type: 'Limited', limited: { assuredConcurrencyShares: -4, limitResponse: { type: 'Reject' } } } });
    s.defaults(stored);
    assert.deepEqual(errors(stored, s), ['spec.limited.assuredConcurrencyShares: Invalid value: -4: must be positive']);
    assert.deepEqual(errors(stored), ['spec.limited.nominalConcurrencyShares: Invalid value: -4: must be positive']);
  });

  it('status conditions name distinct, non-empty types', () => {
    assert.deepEqual(errors(plc('p', { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } }, { conditions: [{ type: 'A' }, { type: 'A' }, { status: 'True' }] })), [
      'status.conditions[1].type: Duplicate value: "A"',
      'status.conditions[2].type: Required value: must not be empty',
    ]);
  });
});
