import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { strategyOf } from '../../testing/apis.js';

const pdbs = strategyOf('policy', 'poddisruptionbudgets');
const rendered = (errs: FieldError[]): string[] => errs.map((e) => `${e.field}: ${e.detail}`);
const pdb = (spec: Record<string, unknown>, status?: Record<string, unknown>): KubeObject => ({
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: { name: 'b', namespace: 'default' },
  spec,
  ...(status ? { status } : {}),
});

describe('PodDisruptionBudget validation', () => {
  const sel = { matchLabels: { app: 'web' } };
  const cases: { name: string; spec: Record<string, unknown>; want: string[] }[] = [
    { name: 'minAvailable as a count', spec: { minAvailable: 2, selector: sel }, want: [] },
    { name: 'maxUnavailable as a percentage', spec: { maxUnavailable: '25%', selector: sel }, want: [] },
    { name: 'an empty selector', spec: { minAvailable: 1, selector: {} }, want: [] },
    { name: 'a negative count', spec: { minAvailable: -1 }, want: ['spec.minAvailable: Invalid value: -1: must be greater than or equal to 0'] },
    { name: 'over 100%', spec: { maxUnavailable: '150%' }, want: ['spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%'] },
    {
      name: 'not a percentage',
      spec: { minAvailable: 'half' },
      want: [`spec.minAvailable: Invalid value: "half": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`],
    },
    { name: 'an unknown policy', spec: { minAvailable: 1, unhealthyPodEvictionPolicy: 'Never' }, want: ['spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"'] },
    { name: 'a known policy', spec: { minAvailable: 1, unhealthyPodEvictionPolicy: 'AlwaysAllow' }, want: [] },
    { name: 'a bad selector operator', spec: { selector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } }, want: ['spec.selector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator'] },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(rendered(pdbs.validate(pdb(c.spec))), c.want));
  }

  it('refuses minAvailable with maxUnavailable', () => {
    const errs = pdbs.validate(pdb({ minAvailable: 1, maxUnavailable: 1 }));
    assert.equal(errs.length, 1);
    assert.equal(errs[0]?.field, 'spec');
    assert.match(errs[0]?.detail ?? '', /minAvailable and maxUnavailable cannot be both set$/);
  });

  it('refuses negative counts in a changed status', () => {
    const old = pdb({ minAvailable: 1 }, { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
    const now = pdb({ minAvailable: 1 }, { disruptionsAllowed: -1, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
    assert.deepEqual(rendered(pdbs.validateUpdate(now, old)), ['status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0']);
  });
});
