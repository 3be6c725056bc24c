import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlavor } from '../naming/index.js';
import { autoUpdateAnnotation, mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from './bootstrap.js';
import { ensureUpdate } from './ensure.js';
import { parseFlowSchema, parsePriorityLevel } from './parse.js';
import type { KubeObject } from '../apimachinery/types.js';

describe('bootstrap configuration (1.27)', () => {
  it('has the mandatory and suggested objects with upstream names and specs', () => {
    setFlavor('kubernetes');
    assert.deepEqual(mandatoryPriorityLevels().map((o) => o.metadata?.name), ['catch-all', 'exempt']);
    assert.deepEqual(mandatoryFlowSchemas().map((o) => o.metadata?.name), ['exempt', 'catch-all']);
    assert.deepEqual(suggestedPriorityLevels().map((o) => o.metadata?.name), ['system', 'node-high', 'leader-election', 'workload-high', 'workload-low', 'global-default']);
    assert.deepEqual(
      suggestedFlowSchemas().map((o) => o.metadata?.name),
      ['system-nodes', 'system-node-high', 'probes', 'system-leader-election', 'workload-leader-election', 'endpoint-controller', 'kube-controller-manager', 'kube-scheduler', 'kube-system-service-accounts', 'service-accounts', 'global-default'],
    );
    type Limited = { nominalConcurrencyShares: number; lendablePercent: number } | undefined;
    const shares: Record<string, Limited> = Object.fromEntries([...mandatoryPriorityLevels(), ...suggestedPriorityLevels()].map((o) => [o.metadata?.name, (o.spec as { limited?: { nominalConcurrencyShares: number; lendablePercent: number } }).limited]));
    assert.deepEqual(
      Object.fromEntries(Object.entries(shares).map(([k, v]) => [k, v && [v.nominalConcurrencyShares, v.lendablePercent]])),
      { 'catch-all': [5, 0], exempt: undefined, system: [30, 33], 'node-high': [40, 25], 'leader-election': [10, 0], 'workload-high': [40, 50], 'workload-low': [100, 90], 'global-default': [20, 50] },
    );
    const precedence = Object.fromEntries([...mandatoryFlowSchemas(), ...suggestedFlowSchemas()].map((o) => [o.metadata?.name, (o.spec as { matchingPrecedence: number }).matchingPrecedence]));
    assert.deepEqual(precedence, {
      exempt: 1, 'catch-all': 10000, 'system-nodes': 500, 'system-node-high': 400, probes: 2, 'system-leader-election': 100, 'workload-leader-election': 200,
      'endpoint-controller': 150, 'kube-controller-manager': 800, 'kube-scheduler': 800, 'kube-system-service-accounts': 900, 'service-accounts': 9000, 'global-default': 9900,
    });
    const ll = suggestedPriorityLevels().find((o) => o.metadata?.name === 'leader-election')!;
    assert.deepEqual((ll.spec as { limited: { limitResponse: unknown } }).limited.limitResponse, { type: 'Queue', queuing: { queues: 16, handSize: 4, queueLengthLimit: 50 } });
    const catchAll = mandatoryPriorityLevels()[0]!;
    assert.deepEqual((catchAll.spec as { limited: { limitResponse: unknown } }).limited.limitResponse, { type: 'Reject' });
    for (const o of [...mandatoryPriorityLevels(), ...suggestedPriorityLevels()]) assert.ok('ok' in parsePriorityLevel(o), o.metadata?.name);
    for (const o of [...mandatoryFlowSchemas(), ...suggestedFlowSchemas()]) {
      assert.ok('ok' in parseFlowSchema(o), o.metadata?.name);
      assert.equal(o.apiVersion, 'flowcontrol.apiserver.k8s.io/v1beta3');
      assert.equal(o.metadata?.annotations?.['apf.kubernetes.io/autoupdate-spec'], 'true');
    }
    const sa = suggestedFlowSchemas().find((o) => o.metadata?.name === 'kube-system-service-accounts')!;
    assert.match(JSON.stringify(sa.spec), /"namespace":"kube-system"/);
    setFlavor('orch');
    assert.equal(autoUpdateAnnotation(), 'apf.orch.io/autoupdate-spec');
    assert.match(JSON.stringify(suggestedFlowSchemas()), /"namespace":"orch-system"/);
    assert.match(JSON.stringify(suggestedFlowSchemas()), /coordination\.orch\.io/);
    assert.doesNotMatch(JSON.stringify([...suggestedFlowSchemas(), ...suggestedPriorityLevels()]), /k8s\.io|kubernetes\.io/);
  });
});

describe('autoupdate rules', () => {
  const boot = (): KubeObject => structuredClone(suggestedPriorityLevels().find((o) => o.metadata?.name === 'global-default')!);
  const changed = (annotation: string | undefined, generation: number): KubeObject => {
    const o = boot();
    (o.spec as { limited: { nominalConcurrencyShares: number } }).limited.nominalConcurrencyShares = 77;
    o.metadata = { name: 'global-default', generation, resourceVersion: '5', ...(annotation === undefined ? {} : { annotations: { [autoUpdateAnnotation()]: annotation } }) };
    return o;
  };
  const shares = (o: KubeObject | undefined) => (o?.spec as { limited: { nominalConcurrencyShares: number } } | undefined)?.limited.nominalConcurrencyShares;

  const table: [string, string | undefined, number, boolean, number | undefined, string | undefined][] = [
    // what, annotation, generation, mandatory, shares after (undefined: no update), annotation after
    ['suggested, annotation true: spec restored', 'true', 3, false, 20, 'true'],
    ['suggested, annotation false: left alone', 'false', 1, false, undefined, undefined],
    ['suggested, no annotation, generation 1: restored and marked', undefined, 1, false, 20, 'true'],
    ['suggested, no annotation, changed (generation 2): kept and marked false', undefined, 2, false, 77, 'false'],
    ['suggested, unreadable annotation, generation 2: marked false', 'yes', 2, false, 77, 'false'],
    ['suggested, Go bool spelling "T" counts as true', 'T', 4, false, 20, 'true'],
    ['mandatory, annotation false: restored and marked true', 'false', 9, true, 20, 'true'],
  ];
  for (const [what, annotation, generation, mandatory, wantShares, wantAnnotation] of table) {
    it(what, () => {
      const out = ensureUpdate(changed(annotation, generation), boot(), mandatory);
      if (wantAnnotation === undefined) {
        assert.equal(out, undefined);
        return;
      }
      assert.equal(shares(out), wantShares);
      assert.equal(out?.metadata?.annotations?.[autoUpdateAnnotation()], wantAnnotation);
      assert.equal(out?.metadata?.resourceVersion, '5', 'the update is guarded by the read version');
    });
  }

  it('an object as bootstrapped needs nothing, even with defaults spelled out or zero values left out', () => {
    const o = boot();
    o.metadata = { ...o.metadata, generation: 1 };
    assert.equal(ensureUpdate(o, boot(), false), undefined);
    const fs = structuredClone(suggestedFlowSchemas()[1]!);
    // The server leaves out `clusterScope: false` when it writes the object back.
    for (const r of (fs.spec as { rules: { resourceRules: { clusterScope?: boolean }[] }[] }).rules[0]!.resourceRules) if (!r.clusterScope) delete r.clusterScope;
    assert.equal(ensureUpdate(fs, suggestedFlowSchemas()[1]!, true), undefined);
  });
});
