// The node IPAM controller: pod CIDRs for nodes from the cluster CIDRs (the range allocator).
export { CIDRSet, CIDRSetError, formatCIDR, parseCIDR, type ParsedCIDR } from './cidr-set.js';
export {
  DEFAULT_NODE_CIDR_MASK_SIZE_IPV4,
  DEFAULT_NODE_CIDR_MASK_SIZE_IPV6,
  DEFAULT_SIMULATED_CLUSTER_CIDR,
  nodeIpamConfig,
  NodeIpamConfigError,
  parseClusterCIDRs,
  RANGE_ALLOCATOR,
  type NodeIpamConfig,
  type NodeIpamFlags,
} from './config.js';
export { CIDR_ALLOCATOR_COMPONENT, NodeIpamController, nodeIpamControllerDescriptor, nodePodCIDRs, type NodeIpamOptions } from './controller.js';
