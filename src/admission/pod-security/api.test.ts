import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlavor } from '../../naming/index.js';
import { levelVersionString, parseVersion, policyFromLabels, PRIVILEGED_POLICY } from './api.js';

describe('Pod Security labels', () => {
  it('are read under the flavor’s domain', () => {
    setFlavor('kubernetes');
    try {
      const { policy, errors } = policyFromLabels({ 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.orch.io/enforce': 'restricted' }, PRIVILEGED_POLICY);
      assert.deepEqual(errors, []);
      assert.equal(levelVersionString(policy.enforce), 'baseline:latest');
      // A stricter enforce level also warns, at its version, when no warn label says otherwise.
      assert.equal(levelVersionString(policy.warn), 'baseline:latest');
    } finally {
      setFlavor('orch');
    }
  });

  it('versions: latest or v1.<minor> without leading zeros or overflow', () => {
    assert.deepEqual(parseVersion('v1.27'), { minor: 27 });
    assert.deepEqual(parseVersion('v1.0'), { minor: 0 });
    for (const bad of ['v1.027', 'v2.0', '1.27', 'v1.', 'v1.x', 'Latest', 'v1.1000000000000000000000']) assert.equal(parseVersion(bad), undefined, bad);
  });

  it('unreadable labels: enforce fails closed, audit and warn open, versions read latest; each is reported', () => {
    setFlavor('orch');
    const { policy, errors } = policyFromLabels(
      { 'pod-security.orch.io/enforce': 'none', 'pod-security.orch.io/audit': 'x', 'pod-security.orch.io/warn-version': 'v9', 'pod-security.orch.io/enforce-version': 'v1.22' },
      PRIVILEGED_POLICY,
    );
    assert.deepEqual([policy.enforce, policy.audit.level, policy.warn.version], [{ level: 'restricted', version: { minor: 22 } }, 'privileged', 'latest']);
    assert.deepEqual(
      errors.map((e) => e.label),
      ['pod-security.orch.io/enforce', 'pod-security.orch.io/audit', 'pod-security.orch.io/warn-version'],
    );
  });
});
