import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CIDRSet, CIDRSetError, formatCIDR, parseCIDR } from './cidr-set.js';

const set = (cluster: string, mask: number): CIDRSet => new CIDRSet(parseCIDR(cluster)!, mask);

describe('parseCIDR', () => {
  it('clears the host bits and formats as Go does', () => {
    assert.equal(formatCIDR(parseCIDR('10.244.3.7/16')!), '10.244.0.0/16');
    assert.equal(formatCIDR(parseCIDR('fd00:10:244::1/56')!), 'fd00:10:244::/56');
    assert.equal(formatCIDR(parseCIDR('0.0.0.0/0')!), '0.0.0.0/0');
  });
  it('refuses what is not a CIDR', () => {
    for (const bad of ['10.0.0.0', '10.0.0.0/33', '10.0.0.0/-1', 'fd00::/129', '10.0.0/8', '/8', '10.0.0.0/8/8', '10.0.0.0/ 8', '__proto__/8', '../8', '10.0.0.0/0008', '１０.0.0.0/8']) {
      assert.equal(parseCIDR(bad), undefined, bad);
    }
  });
});

describe('CIDRSet', () => {
  it('hands out node CIDRs in order, round the range, and none once exhausted', () => {
    const s = set('10.0.0.0/22', 24);
    assert.equal(s.size, 4);
    assert.deepEqual([s.allocateNext(), s.allocateNext(), s.allocateNext()], ['10.0.0.0/24', '10.0.1.0/24', '10.0.2.0/24']);
    s.release('10.0.1.0/24');
    // After the last handed out, not the one just released.
    assert.equal(s.allocateNext(), '10.0.3.0/24');
    assert.equal(s.allocateNext(), '10.0.1.0/24');
    assert.equal(s.allocateNext(), undefined);
    assert.equal(s.inUse(), 4);
  });

  it('skips occupied CIDRs, a larger one occupying every node CIDR it covers', () => {
    const s = set('10.0.0.0/22', 24);
    s.occupy('10.0.0.0/23');
    assert.equal(s.inUse(), 2);
    assert.equal(s.allocateNext(), '10.0.2.0/24');
    s.occupy('10.0.3.0/24');
    assert.equal(s.allocateNext(), undefined);
  });

  it('refuses to occupy a CIDR outside its range or of the other family', () => {
    const s = set('10.0.0.0/22', 24);
    assert.throws(() => s.occupy('10.0.4.0/24'), /out the range of cluster cidr 10\.0\.0\.0\/22/);
    assert.throws(() => s.occupy('fd00::/64'), CIDRSetError);
    assert.throws(() => s.occupy('nonsense'), CIDRSetError);
    assert.equal(s.covers('10.0.2.0/24'), true);
    assert.equal(s.covers('10.1.0.0/24'), false);
  });

  it('allocates IPv6 node CIDRs', () => {
    const s = set('fd00:10:244::/56', 64);
    assert.equal(s.size, 256);
    assert.equal(s.allocateNext(), 'fd00:10:244::/64');
    assert.equal(s.allocateNext(), 'fd00:10:244:1::/64');
  });

  it('refuses a mask shorter than the cluster prefix, and IPv6 masks more than 16 bits longer', () => {
    assert.throws(() => set('10.0.0.0/16', 8), /smaller than the prefix/);
    assert.throws(() => set('fd00::/48', 65), /too big/);
    assert.doesNotThrow(() => set('fd00::/48', 64));
    assert.throws(() => set('10.0.0.0/8', 33), /larger than an IPv4 address/);
  });
});
