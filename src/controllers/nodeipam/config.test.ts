import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nodeIpamConfig, NodeIpamConfigError, type NodeIpamFlags } from './config.js';

const flags = (f: Partial<NodeIpamFlags>): NodeIpamFlags => ({
  allocateNodeCIDRs: true,
  clusterCIDR: '',
  nodeCIDRMaskSize: 0,
  nodeCIDRMaskSizeIPv4: 0,
  nodeCIDRMaskSizeIPv6: 0,
  cidrAllocatorType: 'RangeAllocator',
  ...f,
});

describe('nodeIpamConfig', () => {
  it('is off unless --allocate-node-cidrs', () => {
    assert.equal(nodeIpamConfig(flags({ allocateNodeCIDRs: false, clusterCIDR: '10.244.0.0/16' })), undefined);
  });

  it("takes kube's default mask sizes: 24 for IPv4, 64 for IPv6", () => {
    assert.deepEqual(nodeIpamConfig(flags({ clusterCIDR: '10.244.0.0/16' })), { clusterCIDRs: ['10.244.0.0/16'], nodeMaskSizes: [24] });
    assert.deepEqual(nodeIpamConfig(flags({ clusterCIDR: 'fd00:10:244::/56' })), { clusterCIDRs: ['fd00:10:244::/56'], nodeMaskSizes: [64] });
    assert.deepEqual(nodeIpamConfig(flags({ clusterCIDR: 'fd00:10:244::/56,10.244.0.0/16', nodeCIDRMaskSizeIPv4: 26 })), {
      clusterCIDRs: ['fd00:10:244::/56', '10.244.0.0/16'],
      nodeMaskSizes: [64, 26],
    });
    assert.deepEqual(nodeIpamConfig(flags({ clusterCIDR: '10.244.0.0/16', nodeCIDRMaskSize: 20 }))?.nodeMaskSizes, [20]);
  });

  it("refuses kube's bad combinations with its messages", () => {
    const cases: [Partial<NodeIpamFlags>, RegExp][] = [
      [{}, /--cluster-cidr must be specified/],
      [{ clusterCIDR: '10.244.0.0' }, /invalid CIDR address: 10\.244\.0\.0/],
      [{ clusterCIDR: '10.244.0.0/16,10.245.0.0/16' }, /not configured as dual stack/],
      [{ clusterCIDR: '10.244.0.0/16,fd00::/56,10.1.0.0/16' }, /max allowed of 2/],
      [{ clusterCIDR: '10.244.0.0/16,fd00::/56', nodeCIDRMaskSize: 24 }, /--node-cidr-mask-size is not allowed with dual-stack/],
      [{ clusterCIDR: '10.244.0.0/16', nodeCIDRMaskSize: 24, nodeCIDRMaskSizeIPv4: 24 }, /not allowed if --node-cidr-mask-size is set/],
      [{ clusterCIDR: '10.244.0.0/16', nodeCIDRMaskSizeIPv6: 64 }, /--node-cidr-mask-size-ipv6 is not allowed for a single-stack IPv4 cluster/],
      [{ clusterCIDR: 'fd00::/56', nodeCIDRMaskSizeIPv4: 24 }, /--node-cidr-mask-size-ipv4 is not allowed for a single-stack IPv6 cluster/],
      [{ clusterCIDR: '10.244.0.0/16', nodeCIDRMaskSize: 8 }, /mask size of cluster CIDR must be less than or equal to --node-cidr-mask-size/],
      [{ clusterCIDR: 'fd00::/40' }, /node CIDR size is too big/],
      [{ clusterCIDR: '10.244.0.0/16', cidrAllocatorType: 'CloudAllocator' }, /only RangeAllocator/],
      [{ clusterCIDR: '10.244.0.0/16', nodeCIDRMaskSize: -1 }, /--node-cidr-mask-size: must be a prefix length/],
    ];
    for (const [f, message] of cases) assert.throws(() => nodeIpamConfig(flags(f)), (err: unknown) => err instanceof NodeIpamConfigError && message.test(err.message), JSON.stringify(f));
  });

  it('refuses a malformed --cluster-cidr even with allocation off', () => {
    assert.throws(() => nodeIpamConfig(flags({ allocateNodeCIDRs: false, clusterCIDR: 'nope' })), /invalid CIDR address/);
  });
});
