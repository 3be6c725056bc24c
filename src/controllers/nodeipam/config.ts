// The node IPAM settings from kube-controller-manager's flags, checked as kube checks them
// when allocation is on: one or two cluster CIDRs (two only as a dual-stack pair), a mask size
// per family (`--node-cidr-mask-size` for one family, `-ipv4`/`-ipv6` per family), each mask
// no shorter than its cluster CIDR's prefix.
import { CIDRSet, CIDRSetError, formatCIDR, parseCIDR, type ParsedCIDR } from './cidr-set.js';

/** kube's default node mask sizes. */
export const DEFAULT_NODE_CIDR_MASK_SIZE_IPV4 = 24;
export const DEFAULT_NODE_CIDR_MASK_SIZE_IPV6 = 64;

/**
 * The cluster CIDR of an API server that simulates nodes when none is given: 32768 node CIDRs
 * of /24, clear of the default service range (10.0.0.0/24) and of kube's 10.96.0.0/12.
 */
export const DEFAULT_SIMULATED_CLUSTER_CIDR = '10.128.0.0/9';

/** The only allocator here: `CloudAllocator` needs a cloud provider. */
export const RANGE_ALLOCATOR = 'RangeAllocator';

export interface NodeIpamFlags {
  /** `--allocate-node-cidrs` (false). */
  allocateNodeCIDRs: boolean;
  /** `--cluster-cidr`: one CIDR, or two comma-separated (one per family). */
  clusterCIDR: string;
  /** `--node-cidr-mask-size` (0: the family's default). */
  nodeCIDRMaskSize: number;
  /** `--node-cidr-mask-size-ipv4` (0: 24). */
  nodeCIDRMaskSizeIPv4: number;
  /** `--node-cidr-mask-size-ipv6` (0: 64). */
  nodeCIDRMaskSizeIPv6: number;
  /** `--cidr-allocator-type` (RangeAllocator). */
  cidrAllocatorType: string;
}

/** What the range allocator runs with: the cluster CIDRs, primary first, and their node mask sizes. */
export interface NodeIpamConfig {
  clusterCIDRs: string[];
  nodeMaskSizes: number[];
}

export class NodeIpamConfigError extends Error {}

function masks(flags: NodeIpamFlags, cidrs: ParsedCIDR[]): number[] {
  const forFamilies = (v4: number, v6: number): number[] => cidrs.map((c) => (c.family === 'IPv6' ? v6 : v4));
  const v4 = flags.nodeCIDRMaskSizeIPv4 || DEFAULT_NODE_CIDR_MASK_SIZE_IPV4;
  const v6 = flags.nodeCIDRMaskSizeIPv6 || DEFAULT_NODE_CIDR_MASK_SIZE_IPV6;
  if (cidrs.length > 1) {
    if (flags.nodeCIDRMaskSize !== 0) throw new NodeIpamConfigError('usage of --node-cidr-mask-size is not allowed with dual-stack clusters');
    return forFamilies(v4, v6);
  }
  if (flags.nodeCIDRMaskSize !== 0) {
    if (flags.nodeCIDRMaskSizeIPv4 !== 0 || flags.nodeCIDRMaskSizeIPv6 !== 0) {
      throw new NodeIpamConfigError(
        'usage of --node-cidr-mask-size-ipv4 and --node-cidr-mask-size-ipv6 is not allowed if --node-cidr-mask-size is set. For dual-stack clusters please unset it and use IPFamily specific flags',
      );
    }
    return forFamilies(flags.nodeCIDRMaskSize, flags.nodeCIDRMaskSize);
  }
  const v6Only = cidrs[0]?.family === 'IPv6';
  if (flags.nodeCIDRMaskSizeIPv4 !== 0 && v6Only) throw new NodeIpamConfigError('usage of --node-cidr-mask-size-ipv4 is not allowed for a single-stack IPv6 cluster');
  if (flags.nodeCIDRMaskSizeIPv6 !== 0 && !v6Only) throw new NodeIpamConfigError('usage of --node-cidr-mask-size-ipv6 is not allowed for a single-stack IPv4 cluster');
  return forFamilies(v4, v6);
}

/** The cluster CIDRs of `--cluster-cidr`; throws on a malformed one. */
export function parseClusterCIDRs(flag: string): ParsedCIDR[] {
  if (flag.trim() === '') return [];
  return flag.split(',').map((text) => {
    const c = parseCIDR(text.trim());
    if (!c) throw new NodeIpamConfigError(`--cluster-cidr: invalid CIDR address: ${text.trim()}`);
    return c;
  });
}

/**
 * The allocator's settings, undefined when allocation is off; throws a NodeIpamConfigError
 * with kube's message for a bad combination. Malformed flags are refused even with allocation off.
 */
export function nodeIpamConfig(flags: NodeIpamFlags): NodeIpamConfig | undefined {
  for (const [name, v] of [
    ['node-cidr-mask-size', flags.nodeCIDRMaskSize],
    ['node-cidr-mask-size-ipv4', flags.nodeCIDRMaskSizeIPv4],
    ['node-cidr-mask-size-ipv6', flags.nodeCIDRMaskSizeIPv6],
  ] as const) {
    if (!Number.isInteger(v) || v < 0 || v > 128) throw new NodeIpamConfigError(`--${name}: must be a prefix length from 1 to 128 (0 for the default), not ${v}`);
  }
  if (flags.cidrAllocatorType !== RANGE_ALLOCATOR) {
    throw new NodeIpamConfigError(`--cidr-allocator-type: only ${RANGE_ALLOCATOR} is supported (CloudAllocator needs a cloud provider), not "${flags.cidrAllocatorType}"`);
  }
  const cidrs = parseClusterCIDRs(flags.clusterCIDR);
  if (!flags.allocateNodeCIDRs) return undefined;
  if (cidrs.length === 0) throw new NodeIpamConfigError('--cluster-cidr must be specified if --allocate-node-cidrs is set');
  if (cidrs.length > 2) throw new NodeIpamConfigError(`len of clusters cidrs is:${cidrs.length} > more than max allowed of 2`);
  if (cidrs.length === 2 && cidrs[0]!.family === cidrs[1]!.family) {
    throw new NodeIpamConfigError('len of ClusterCIDRs==2 and they are not configured as dual stack (at least one from each IPFamily');
  }
  const nodeMaskSizes = masks(flags, cidrs);
  cidrs.forEach((c, i) => {
    const mask = nodeMaskSizes[i]!;
    if (c.prefix > mask) {
      throw new NodeIpamConfigError(
        `invalid --cluster-cidr ${formatCIDR(c)}: mask size of cluster CIDR must be less than or equal to --node-cidr-mask-size configured for CIDR family (/${mask})`,
      );
    }
    try {
      new CIDRSet(c, mask);
    } catch (err) {
      if (err instanceof CIDRSetError) throw new NodeIpamConfigError(`--cluster-cidr ${formatCIDR(c)}: ${err.message}`);
      throw err;
    }
  });
  return { clusterCIDRs: cidrs.map(formatCIDR), nodeMaskSizes };
}
