// The node IPAM controller (kube-controller-manager's `nodeipam`, range allocator): every
// Node gets `spec.podCIDR`/`podCIDRs`, one node CIDR per cluster CIDR. A node that has them
// keeps them (marked in use at start and whenever seen); a deleted node's are released.
// When a range has no free CIDR left the node gets the event `CIDRNotAvailable` and is tried
// again when a CIDR is released or the node changes, as kube tries on every node update.
import { isApiError } from '../../apimachinery/errors.js';
import type { Clock } from '../../apimachinery/clock.js';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import type { EventRecorder } from '../../client/events.js';
import type { Informer } from '../../client/informer.js';
import type { ApiClient } from '../../client/types.js';
import { KeyedLoop } from '../keyed-loop.js';
import type { ControllerDescriptor } from '../types.js';
import { CIDRSet, parseCIDR } from './cidr-set.js';
import type { NodeIpamConfig } from './config.js';

export const NODES: GroupVersionResource = { group: '', version: 'v1', resource: 'nodes' };
/** The event source kube's range allocator records under. */
export const CIDR_ALLOCATOR_COMPONENT = 'cidrAllocator';
/** Workers patching nodes (kube's cidrUpdateWorkers). */
const UPDATE_WORKERS = 30;

export interface NodeIpamOptions {
  client: ApiClient;
  nodes: Informer;
  clock: Clock;
  config: NodeIpamConfig;
  recorder: EventRecorder;
  onError: (err: unknown) => void;
  log?: (line: string) => void;
}

/** A node's pod CIDRs as its spec holds them (`podCIDRs`, else `podCIDR`). */
export function nodePodCIDRs(node: KubeObject): string[] {
  const spec = (node.spec ?? {}) as { podCIDR?: unknown; podCIDRs?: unknown };
  if (Array.isArray(spec.podCIDRs) && spec.podCIDRs.length > 0) return spec.podCIDRs.filter((c): c is string => typeof c === 'string' && c !== '');
  return typeof spec.podCIDR === 'string' && spec.podCIDR !== '' ? [spec.podCIDR] : [];
}

/** kube's cidrUpdateRetries: patches of a node's CIDRs tried before they are released. */
const CIDR_UPDATE_RETRIES = 3;

export class NodeIpamController extends KeyedLoop {
  private readonly sets: CIDRSet[];
  /** The CIDRs each node holds in the sets (allocated here, or occupied from its spec). */
  private readonly held = new Map<string, string[]>();
  /** Nodes that found a range exhausted: tried again when a CIDR is released. */
  private readonly waiting = new Set<string>();
  /** Set once the existing nodes are marked and new ones handed to the loop: idle only after. */
  private watching = false;

  constructor(private readonly opts: NodeIpamOptions) {
    super(opts.clock, 'node_ipam_controller');
    this.sets = opts.config.clusterCIDRs.map((c, i) => new CIDRSet(parseCIDR(c)!, opts.config.nodeMaskSizes[i]!));
  }

  start(): this {
    void this.synced(this.opts.nodes).then((ok) => {
      if (!ok) return;
      // The CIDRs existing nodes hold are marked first, so that none is handed out twice.
      for (const node of this.opts.nodes.list()) this.occupy(node);
      this.onStop(
        this.opts.nodes.addEventHandler({
          onAdd: (n) => this.add(n.metadata?.name ?? ''),
          onUpdate: (_o, n) => {
            if (nodePodCIDRs(n).length === 0 || !this.held.has(n.metadata?.name ?? '')) this.add(n.metadata?.name ?? '');
          },
          onDelete: (n) => this.release(n),
        }),
      );
      this.run((name) => this.sync(name), UPDATE_WORKERS, this.opts.onError);
      this.watching = true;
    });
    return this;
  }

  /** Not idle before it has looked at the nodes: with nothing queued yet, it has not assigned them either. */
  override idle(): boolean {
    return this.watching && super.idle();
  }

  /** CIDRs in use per cluster CIDR (for tests and logs). */
  inUse(): number[] {
    return this.sets.map((s) => s.inUse());
  }

  /** Marks the CIDRs a node's spec holds; false when it has none. */
  private occupy(node: KubeObject): boolean {
    const name = node.metadata?.name ?? '';
    const cidrs = nodePodCIDRs(node);
    if (cidrs.length === 0) return false;
    const held = this.held.get(name);
    if (held && held.join() === cidrs.join()) return true;
    if (held) this.releaseCIDRs(held);
    const marked: string[] = [];
    cidrs.forEach((cidr, i) => {
      const set = this.sets.find((s) => s.covers(cidr)) ?? this.sets[i];
      try {
        if (!set) throw new Error(`no cluster CIDR for its pod CIDR ${cidr}`);
        set.occupy(cidr);
        marked.push(cidr);
      } catch (err) {
        this.opts.log?.(`node ${name}: its pod CIDR ${cidr} is left as it is, outside the allocator's ranges: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
    this.held.set(name, marked);
    this.waiting.delete(name);
    return true;
  }

  private releaseCIDRs(cidrs: readonly string[]): void {
    for (const cidr of cidrs) {
      const set = this.sets.find((s) => s.covers(cidr));
      set?.release(cidr);
    }
  }

  private release(node: KubeObject): void {
    const name = node.metadata?.name ?? '';
    const held = this.held.get(name);
    this.held.delete(name);
    this.waiting.delete(name);
    if (!held || held.length === 0) return;
    this.releaseCIDRs(held);
    // A freed CIDR is for the nodes that are waiting for one.
    for (const waiting of this.waiting) this.add(waiting);
  }

  async sync(name: string): Promise<void> {
    const node = this.opts.nodes.get('', name);
    if (!node) return;
    if (this.occupy(node)) return;
    let cidrs = this.held.get(name);
    if (!cidrs || cidrs.length === 0) {
      cidrs = [];
      for (const [i, set] of this.sets.entries()) {
        const cidr = set.allocateNext();
        if (cidr === undefined) {
          this.releaseCIDRs(cidrs);
          this.waiting.add(name);
          this.recordStatusChange(node, 'CIDRNotAvailable');
          this.opts.log?.(`node ${name}: no pod CIDR left in ${this.opts.config.clusterCIDRs[i] ?? ''}`);
          return;
        }
        cidrs.push(cidr);
      }
      this.held.set(name, cidrs);
      this.waiting.delete(name);
    }
    try {
      // As kube's range allocator, the patch is tried a few times before the CIDRs go back: a
      // conflict with the node's other writers (its status, its taints) is no reason to move it.
      for (let attempt = 1; ; attempt++) {
        try {
          await this.opts.client.patch(NODES, '', name, { spec: { podCIDR: cidrs[0], podCIDRs: cidrs } });
          break;
        } catch (err) {
          if (attempt >= CIDR_UPDATE_RETRIES || !(isApiError(err) && err.code === 409)) throw err;
        }
      }
    } catch (err) {
      // Only what this sync took is given back: the delete handler may have released it already.
      if (this.held.get(name) === cidrs) {
        this.held.delete(name);
        this.releaseCIDRs(cidrs);
      }
      if (isApiError(err) && err.code === 404) return;
      this.recordStatusChange(node, 'CIDRAssignmentFailed');
      throw err;
    }
  }

  /** kube's node status event: `Node <name> status is now: <status>`. */
  private recordStatusChange(node: KubeObject, status: string): void {
    const name = node.metadata?.name ?? '';
    this.opts.recorder.eventf(node, undefined, 'Normal', status, status, `Node ${name} status is now: ${status}`);
  }
}

/** The descriptor, for the settings of the flags; the manager skips it when allocation is off. */
export function nodeIpamControllerDescriptor(config: () => NodeIpamConfig | undefined): ControllerDescriptor {
  return {
    name: 'nodeipam',
    requires: [{ group: '', resource: 'nodes' }],
    start(ctx) {
      const c = config();
      if (!c) {
        ctx.log('nodeipam: --allocate-node-cidrs is false, not allocating node CIDRs');
        return { async stop() {} };
      }
      return new NodeIpamController({
        client: ctx.client,
        nodes: ctx.informers.informerFor(NODES),
        clock: ctx.clock,
        config: c,
        recorder: ctx.eventRecorder(CIDR_ALLOCATOR_COMPONENT),
        onError: ctx.onError,
        log: ctx.log,
      }).start();
    },
  };
}
