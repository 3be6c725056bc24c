// The node agent: simulated nodes in the server's process, as KWOK simulates them. A Node
// annotated `kwok.x-k8s.io/node: fake` (or one `--simulated-nodes` created) has its Lease
// renewed and its status played by the node stages; pods bound to it are taken through the
// pod stages (ready, complete for Jobs' pods, deletion finished). It works through a client
// and shared informers, as a controller does.

import { constants as fsConstants } from 'node:fs';
import { access } from 'node:fs/promises';
import { realClock, type Clock } from '../apimachinery/clock.js';
import { internalError, isApiError } from '../apimachinery/errors.js';
import { getOwn } from '../apimachinery/own.js';
import { isPlainObject, type GroupVersionResource, type KubeObject } from '../apimachinery/types.js';
import { podNodeName } from '../apis/core/helpers/pod.js';
import { EventBroadcaster, type EventRecorder } from '../client/events.js';
import { keyOf, splitKey, type Informer } from '../client/informer.js';
import { SharedInformerFactory } from '../client/informer-factory.js';
import { NODE_NAME_INDEX, podsByNodeName } from '../client/indexes.js';
import type { ApiClient } from '../client/types.js';
import { KeyedLoop } from '../controllers/keyed-loop.js';
import { KWOK_NODE_ANNOTATION, KWOK_NODE_ANNOTATION_VALUE } from '../naming/index.js';
import type { ConnectRequest, SimulatedLogRequest, SimulatedNodes } from '../rest/index.js';
import { emptyConfig, stagesOf, type SimulatedNodeConfig } from './config.js';
import { defaultNodeStages, defaultPodStages, healthyNodeConditions, newSimulatedNode } from './defaults.js';
import { IPPools } from './ip-pool.js';
import { LeaseRenewer } from './leases.js';
import { findLogSource, readLog } from './logs.js';
import { chooseStage, playStage, stageDelayMs, type SimulatedKind, type Stage, type StageOutcome } from './stage.js';
import { RenderError, type TemplateEnv } from './template.js';

const NODES: GroupVersionResource = { group: '', version: 'v1', resource: 'nodes' };
const PODS: GroupVersionResource = { group: '', version: 'v1', resource: 'pods' };

/** KWOK's pod address range for nodes without a podCIDR (its `--cidr` default), shared by them. */
export const DEFAULT_POD_CIDR = '10.0.0.0/24';
/** Node addresses for nodes created without one: the documentation range, as kwokctl's node template. */
export const DEFAULT_NODE_CIDR = '192.0.2.0/24';
/** What the node agent reports as the kubelet's version unless told (the API's release). */
export const DEFAULT_KUBELET_VERSION = 'v1.27.16';

export interface NodeAgentOptions {
  /** A privileged client (the server's in-process one). */
  client: ApiClient;
  clock?: Clock;
  /** Informers to share; the agent makes (and stops) its own when absent. */
  informers?: SharedInformerFactory;
  config?: SimulatedNodeConfig;
  /** Nodes to create at start (`--simulated-nodes`): `<name>-000000`, ... */
  nodes?: number;
  kubeletVersion?: string;
  /** [0, 1): delays' jitter and the choice among matching stages (Math.random when absent). */
  random?: () => number;
  /** Pod writes in flight at most (default 32). */
  podWorkers?: number;
  leaseRenewIntervalMs?: number;
  log?: (line: string) => void;
  onError?: (err: unknown) => void;
}

interface NodeInfo {
  uid: string;
  simulated: boolean;
  podCIDRs: string[];
  /** The InternalIP in the node's status, if any. */
  internalIP?: string;
}

interface Pending {
  rv: string;
  stage: Stage;
  due: number;
}

function annotations(obj: KubeObject): Record<string, unknown> {
  const a = obj.metadata?.annotations;
  return isPlainObject(a) ? a : {};
}

export function isSimulatedNode(node: KubeObject): boolean {
  return getOwn(annotations(node), KWOK_NODE_ANNOTATION) === KWOK_NODE_ANNOTATION_VALUE;
}

function podCIDRsOf(node: KubeObject): string[] {
  const spec = isPlainObject(node.spec) ? node.spec : {};
  if (Array.isArray(spec.podCIDRs) && spec.podCIDRs.length > 0) return spec.podCIDRs.filter((c): c is string => typeof c === 'string');
  return typeof spec.podCIDR === 'string' && spec.podCIDR !== '' ? [spec.podCIDR] : [];
}

function internalIPOf(node: KubeObject): string | undefined {
  const status = isPlainObject(node.status) ? node.status : {};
  const addresses = Array.isArray(status.addresses) ? status.addresses : [];
  const a = addresses.find((x) => isPlainObject(x) && x.type === 'InternalIP' && typeof x.address === 'string') as { address: string } | undefined;
  return a?.address;
}

function podIPsOf(pod: KubeObject): string[] {
  const status = isPlainObject(pod.status) ? pod.status : {};
  if (Array.isArray(status.podIPs) && status.podIPs.length > 0) {
    return status.podIPs.map((p) => (isPlainObject(p) && typeof p.ip === 'string' ? p.ip : '')).filter((ip) => ip !== '');
  }
  return typeof status.podIP === 'string' && status.podIP !== '' ? [status.podIP] : [];
}

export class NodeAgent implements SimulatedNodes {
  private readonly client: ApiClient;
  private readonly clock: Clock;
  private readonly informers: SharedInformerFactory;
  private readonly ownsInformers: boolean;
  private readonly nodeInformer: Informer;
  /** Asked for once a node is simulated: a server without simulated nodes holds no copy of its pods here. */
  private podInformer: Informer | undefined;
  private readonly config: SimulatedNodeConfig;
  private readonly podStages: Stage[];
  private readonly nodeStages: Stage[];
  private readonly random: () => number;
  private readonly kubeletVersion: string;
  private readonly nodeLoop: KeyedLoop;
  private readonly podLoop: KeyedLoop;
  private readonly leases: LeaseRenewer;
  private events: { broadcaster: EventBroadcaster; recorder: EventRecorder } | undefined;
  private readonly nodes = new Map<string, NodeInfo>();
  private readonly pending = { Pod: new Map<string, Pending>(), Node: new Map<string, Pending>() };
  private readonly podPools = new IPPools();
  private readonly nodePools = new IPPools();
  /** Addresses handed out, so that a pod (or node) played twice keeps its address. */
  private readonly podIPs = new Map<string, string[]>();
  private readonly nodeIPs = new Map<string, string>();
  private readonly cleanups: (() => void)[] = [];
  private startedAt = new Date(0);
  private starting: Promise<void> | undefined;
  private creating = false;
  private stopped = false;

  constructor(private readonly opts: NodeAgentOptions) {
    this.client = opts.client;
    this.clock = opts.clock ?? realClock;
    this.ownsInformers = !opts.informers;
    this.informers = opts.informers ?? new SharedInformerFactory(opts.client, { dropManagedFields: true, onError: (err) => this.error(err) });
    this.nodeInformer = this.informers.informerFor(NODES);
    this.config = opts.config ?? emptyConfig();
    this.kubeletVersion = opts.kubeletVersion ?? DEFAULT_KUBELET_VERSION;
    this.podStages = stagesOf(this.config, 'Pod', defaultPodStages);
    this.nodeStages = stagesOf(this.config, 'Node', () => defaultNodeStages(this.kubeletVersion));
    this.random = opts.random ?? Math.random;
    this.nodeLoop = new KeyedLoop(this.clock, 'simulated_nodes');
    this.podLoop = new KeyedLoop(this.clock, 'simulated_pods');
    this.leases = new LeaseRenewer(opts.client, this.clock, {
      ...(opts.leaseRenewIntervalMs !== undefined ? { renewIntervalMs: opts.leaseRenewIntervalMs } : {}),
      onError: (err) => this.error(err),
    });
  }

  /** The recorder of the stages' events, made on first use (its timers run on the clock). */
  private recorder(): EventRecorder {
    if (!this.events) {
      const broadcaster = new EventBroadcaster(this.client, { clock: this.clock, onError: (err) => this.error(err) });
      this.events = { broadcaster, recorder: broadcaster.newRecorder('kubelet') };
    }
    return this.events.recorder;
  }

  /** Starts following pods (the first time a node is simulated). */
  private pods(): Informer {
    if (!this.podInformer) {
      // Every pod, in the informer the scheduler and the controllers share: pods still waiting
      // for the scheduler are passed over here, and a node's pods are found through the index.
      const informer = this.informers.informerFor(PODS);
      informer.addIndexers({ [NODE_NAME_INDEX]: podsByNodeName });
      this.podInformer = informer;
      this.cleanups.push(
        informer.addEventHandler({
          onAdd: (p) => this.onPod(p),
          // A resync hands the same object twice: nothing changed for the agent (it asks for none).
          onUpdate: (old, p) => {
            if (old !== p) this.onPod(p);
          },
          onDelete: (p) => this.onPodDeleted(p),
        }),
      );
    }
    return this.podInformer;
  }

  /** The keys of the pods bound to a node, as the pods informer holds them. */
  private podsOn(nodeName: string): string[] {
    return this.podInformer?.indexKeys(NODE_NAME_INDEX, nodeName) ?? [];
  }

  private error(err: unknown): void {
    if (this.opts.onError) this.opts.onError(err);
    else this.opts.log?.(`node agent: ${err instanceof Error ? err.message : String(err)}`);
  }

  /** Starts following nodes and pods, then creates the nodes asked for. Resolves once they exist. */
  start(): Promise<void> {
    return (this.starting ??= this.run());
  }

  private async run(): Promise<void> {
    this.startedAt = this.clock.now();
    this.cleanups.push(
      this.nodeInformer.addEventHandler({
        onAdd: (n) => this.onNode(n),
        onUpdate: (_old, n) => this.onNode(n),
        onDelete: (n) => this.onNodeDeleted(n),
      }),
    );
    const onError = (err: unknown): void => this.error(err);
    this.nodeLoop.run((key) => this.syncStage('Node', key), 4, onError);
    this.podLoop.run((key) => this.syncStage('Pod', key), this.opts.podWorkers ?? 32, onError);
    if (this.ownsInformers) this.informers.start();
    await this.nodeInformer.waitForSync();
    await this.podInformer?.waitForSync();
    if (this.stopped) return;
    const count = this.opts.nodes ?? 0;
    if (count > 0) {
      this.creating = true;
      try {
        await this.createNodes(count);
      } finally {
        this.creating = false;
      }
    }
  }

  /** Creates the missing ones of `<name>-000000` .. `<name>-<count - 1>`, a few at a time. */
  private async createNodes(count: number): Promise<void> {
    const template = this.config.nodeTemplate;
    const base = template?.metadata?.name || 'node';
    let next = 0;
    const worker = async (): Promise<void> => {
      while (!this.stopped && next < count) {
        const name = `${base}-${String(next++).padStart(6, '0')}`;
        if (this.nodeInformer.get('', name)) continue;
        const ip = this.nodeIP(name);
        try {
          await this.client.create(NODES, '', newSimulatedNode(name, { template, internalIP: ip, kubeletVersion: this.kubeletVersion }));
        } catch (err) {
          // Made by an earlier run of the server (its informer event has not come yet).
          if (!(isApiError(err) && err.code === 409)) throw err;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(16, count) }, worker));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const fn of this.cleanups.splice(0)) fn();
    await Promise.all([this.nodeLoop.stop(), this.podLoop.stop(), this.leases.stop()]);
    await this.events?.broadcaster.stop();
    if (this.ownsInformers) await this.informers.stop();
  }

  /** Nothing queued or being written (pending delays do not count), the informers synced and the nodes made. */
  idle(): boolean {
    if (!this.starting || this.creating) return false;
    if (!this.nodeInformer.hasSynced() || (this.podInformer && !this.podInformer.hasSynced())) return false;
    return this.nodeLoop.idle() && this.podLoop.idle() && this.leases.idle();
  }

  /** Lease writes so far (creates and renewals). */
  leaseWrites(): number {
    return this.leases.writes;
  }

  // -------------------------------------------------------------------------------------
  // SimulatedNodes: the connect subresources' hook

  isSimulated(nodeName: string): boolean {
    return this.nodes.get(nodeName)?.simulated === true;
  }

  /**
   * Answers a log request of a pod on a simulated node: the configured file, read with the
   * request's options, or an empty log. A file that cannot be read is a 500 before any byte.
   */
  async serveLog(req: SimulatedLogRequest, response: ConnectRequest['response'], signal: AbortSignal): Promise<void> {
    const source = findLogSource(this.config.logs, this.config.clusterLogs, req.namespace, req.pod, req.container);
    const file = req.previous ? source?.previousLogsFile : source?.logsFile;
    if (file !== undefined) {
      try {
        await access(file, fsConstants.R_OK);
      } catch (err) {
        // The configured path is the administrator's: the client learns only that it failed.
        const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
        throw internalError(new Error(`the log of container ${req.container} of pod ${req.namespace}/${req.pod} cannot be read (${code})`));
      }
    }
    response.writeHead(200, { 'content-type': 'text/plain' });
    if (file !== undefined) {
      for await (const chunk of readLog(file, req, this.clock.now().getTime(), signal)) {
        if (signal.aborted) break;
        if (!response.write(chunk)) await new Promise<void>((resolve) => {
          const done = (): void => resolve();
          (response as unknown as NodeJS.EventEmitter).once('drain', done);
          (response as unknown as NodeJS.EventEmitter).once('close', done);
        });
      }
    }
    response.end();
  }

  // -------------------------------------------------------------------------------------
  // Following nodes and pods

  private onNode(node: KubeObject): void {
    const name = node.metadata?.name ?? '';
    const simulated = isSimulatedNode(node);
    const known = this.nodes.get(name);
    const info: NodeInfo = { uid: node.metadata?.uid ?? '', simulated, podCIDRs: podCIDRsOf(node) };
    const ip = internalIPOf(node);
    if (ip) {
      info.internalIP = ip;
      this.nodePools.pool(DEFAULT_NODE_CIDR)?.use(ip);
    }
    this.nodes.set(name, info);
    if (simulated) {
      this.pods();
      this.leases.track(name, info.uid);
      this.nodeLoop.add(name);
      if (!known?.simulated || known.podCIDRs.join() !== info.podCIDRs.join()) {
        // Newly simulated (or its pod range changed): its pods' addresses and stages.
        for (const key of this.podsOn(name)) {
          this.markPodIPs(key);
          this.podLoop.add(key);
        }
      }
    } else if (known?.simulated) {
      this.stopSimulating(name);
    }
  }

  /** A node no longer simulated: its heartbeat stops (lease and status), its pods are left as they are. */
  private stopSimulating(name: string): void {
    this.leases.untrack(name);
    this.pending.Node.delete(name);
    this.nodeLoop.cancelWake(name);
    for (const key of this.podsOn(name)) {
      this.pending.Pod.delete(key);
      this.podLoop.cancelWake(key);
    }
  }

  private onNodeDeleted(node: KubeObject): void {
    const name = node.metadata?.name ?? '';
    this.stopSimulating(name);
    this.nodes.delete(name);
    const ip = this.nodeIPs.get(name) ?? internalIPOf(node);
    if (ip) this.nodePools.pool(DEFAULT_NODE_CIDR)?.put(ip);
    this.nodeIPs.delete(name);
  }

  private onPod(pod: KubeObject): void {
    const key = keyOf(pod);
    const nodeName = podNodeName(pod);
    if (!nodeName || !this.isSimulated(nodeName)) return;
    if (!this.podIPs.has(key)) this.markPodIPs(key, pod);
    this.podLoop.add(key);
  }

  private onPodDeleted(pod: KubeObject): void {
    const key = keyOf(pod);
    // Pods still waiting for the scheduler were never the agent's.
    const nodeName = podNodeName(pod);
    if (!nodeName) return;
    this.pending.Pod.delete(key);
    this.podLoop.cancelWake(key);
    const ips = this.podIPs.get(key) ?? podIPsOf(pod);
    this.podIPs.delete(key);
    const cidrs = this.podCIDRs(nodeName);
    ips.forEach((ip, i) => {
      const cidr = cidrs[i];
      if (cidr) this.podPools.pool(cidr)?.put(ip);
    });
  }

  /** The addresses a pod already holds, marked in use (after a restart, or when its node turns simulated). */
  private markPodIPs(key: string, pod?: KubeObject): void {
    const { namespace, name } = splitKey(key);
    const obj = pod ?? this.podInformer?.get(namespace, name);
    if (!obj) return;
    const ips = podIPsOf(obj);
    const nodeName = podNodeName(obj);
    if (ips.length === 0 || !nodeName || (isPlainObject(obj.spec) && obj.spec.hostNetwork === true)) return;
    const cidrs = this.podCIDRs(nodeName);
    ips.forEach((ip, i) => {
      const cidr = cidrs[i];
      if (cidr) this.podPools.pool(cidr)?.use(ip);
    });
    this.podIPs.set(key, ips);
  }

  // -------------------------------------------------------------------------------------
  // Addresses (KWOK's NodeIP, PodIP and friends)

  private podCIDRs(nodeName: string): string[] {
    const cidrs = this.nodes.get(nodeName)?.podCIDRs ?? [];
    return cidrs.length > 0 ? cidrs : [DEFAULT_POD_CIDR];
  }

  /** The node's InternalIP: the one in its status, else one handed out (and remembered). */
  private nodeIP(nodeName: string): string {
    const known = this.nodes.get(nodeName)?.internalIP;
    if (known) return known;
    let ip = this.nodeIPs.get(nodeName);
    if (!ip) {
      ip = this.nodePools.pool(DEFAULT_NODE_CIDR)!.get();
      this.nodeIPs.set(nodeName, ip);
    }
    return ip;
  }

  /** A pod's addresses on `nodeName`: the ones it holds, else free ones of the node's ranges. */
  private podIPsFor(key: string | undefined, pod: KubeObject | undefined, nodeName: string): string[] {
    if (key) {
      const held = this.podIPs.get(key) ?? (pod ? podIPsOf(pod) : []);
      if (held.length > 0) {
        this.podIPs.set(key, held);
        return held;
      }
    }
    const ips: string[] = [];
    for (const cidr of this.podCIDRs(nodeName)) {
      const ip = this.podPools.pool(cidr)?.get();
      if (ip) ips.push(ip);
    }
    if (ips.length === 0) ips.push(this.nodeIP(nodeName));
    if (key) this.podIPs.set(key, ips);
    return ips;
  }

  private envFor(kind: SimulatedKind, obj: KubeObject): TemplateEnv {
    const key = kind === 'Pod' ? keyOf(obj) : undefined;
    const nodeName = kind === 'Node' ? (obj.metadata?.name ?? '') : podNodeName(obj);
    const podOf = (n: string): KubeObject | undefined => (n === nodeName ? obj : undefined);
    return {
      now: () => this.clock.now(),
      startTime: () => this.startedAt,
      version: () => this.kubeletVersion,
      nodeConditions: () => healthyNodeConditions(),
      nodeIP: () => this.nodeIP(nodeName),
      nodeName: () => nodeName,
      nodePort: () => 0,
      podIP: () => this.podIPsFor(key, kind === 'Pod' ? obj : undefined, nodeName)[0] ?? '',
      nodeIPWith: (n) => this.nodeIP(n),
      nodeIPsWith: (n) => [this.nodeIP(n)],
      podIPWith: (n, hostNetwork) => (hostNetwork ? this.nodeIP(n) : (this.podIPsFor(key, podOf(n), n)[0] ?? '')),
      podIPsWith: (n, hostNetwork) => (hostNetwork ? [this.nodeIP(n)] : this.podIPsFor(key, podOf(n), n)),
    };
  }

  // -------------------------------------------------------------------------------------
  // Stages

  private informerOf(kind: SimulatedKind): Informer {
    return kind === 'Pod' ? this.pods() : this.nodeInformer;
  }

  private loopOf(kind: SimulatedKind): KeyedLoop {
    return kind === 'Pod' ? this.podLoop : this.nodeLoop;
  }

  private simulates(kind: SimulatedKind, obj: KubeObject): boolean {
    return kind === 'Node' ? isSimulatedNode(obj) : this.isSimulated(podNodeName(obj));
  }

  /**
   * Plays the stage due for the object behind `key`: matches it once per resourceVersion,
   * waits out the stage's delay on the clock, then writes what the stage changes. A newer
   * version of the object (a watch event) matches afresh, as in KWOK.
   */
  private async syncStage(kind: SimulatedKind, key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const pending = this.pending[kind];
    const loop = this.loopOf(kind);
    const stages = kind === 'Pod' ? this.podStages : this.nodeStages;
    let obj: Readonly<KubeObject> | undefined = this.informerOf(kind).get(namespace, name);
    // `immediateNextStage` plays the next stage on the written object without waiting for its event.
    for (let hop = 0; hop < 16 && obj; hop++) {
      if (!this.simulates(kind, obj)) {
        pending.delete(key);
        loop.cancelWake(key);
        return;
      }
      const rv = obj.metadata?.resourceVersion ?? '';
      let p = pending.get(key);
      if (!p || p.rv !== rv) {
        const stage = chooseStage(obj, stages, this.random);
        if (!stage) {
          pending.delete(key);
          loop.cancelWake(key);
          return;
        }
        const now = this.clock.now().getTime();
        p = { rv, stage, due: now + stageDelayMs(stage, obj, now, this.random) };
        pending.set(key, p);
      }
      const now = this.clock.now().getTime();
      if (now < p.due) {
        loop.wakeAfter(key, p.due - now);
        return;
      }
      pending.delete(key);
      const written = await this.play(kind, p.stage, obj);
      if (!p.stage.immediateNextStage) return;
      obj = written;
    }
  }

  /** Plays `stage` on `obj`; resolves with the object as last written, if it still exists. */
  private async play(kind: SimulatedKind, stage: Stage, obj: KubeObject): Promise<KubeObject | undefined> {
    let outcome: StageOutcome;
    try {
      outcome = playStage(stage, obj, this.envFor(kind, obj));
    } catch (err) {
      // A template that fails on this object: said once, not retried until the object changes.
      if (err instanceof RenderError || isApiError(err)) {
        this.error(new Error(`stage ${JSON.stringify(stage.name)} (${stage.source}) on ${kind} ${keyOf(obj)}: ${err.message}`));
        return undefined;
      }
      throw err;
    }
    return this.apply(kind, obj, stage, outcome);
  }

  private async apply(kind: SimulatedKind, obj: KubeObject, stage: Stage, outcome: StageOutcome): Promise<KubeObject | undefined> {
    const gvr = kind === 'Pod' ? PODS : NODES;
    const namespace = obj.metadata?.namespace ?? '';
    const name = obj.metadata?.name ?? '';
    if (outcome.event) this.recorder().eventf(obj, undefined, outcome.event.type, outcome.event.reason, stage.name, outcome.event.message);
    let current: KubeObject = obj;
    try {
      if (outcome.finalizers) {
        current = await this.client.patch(gvr, namespace, name, { metadata: { finalizers: outcome.finalizers, resourceVersion: obj.metadata?.resourceVersion } });
      }
      if (outcome.delete) {
        // The kubelet's final delete: at once, and only of the object it saw.
        const uid = obj.metadata?.uid;
        await this.client.delete(gvr, namespace, name, { ...(kind === 'Pod' ? { gracePeriodSeconds: 0 } : {}), ...(uid ? { preconditions: { uid } } : {}) });
        return undefined;
      }
      if (outcome.status) return await this.client.update(gvr, namespace, { ...current, status: outcome.status }, 'status');
      return current === obj ? undefined : current;
    } catch (err) {
      // Gone, or changed meanwhile: its next event decides again.
      if (isApiError(err) && (err.code === 404 || err.code === 409)) return undefined;
      // Refused (a stage's status the server does not accept): said once, not retried until the object changes.
      if (isApiError(err) && (err.code === 400 || err.code === 422)) {
        this.error(new Error(`stage ${JSON.stringify(stage.name)} (${stage.source}) on ${kind} ${keyOf(obj)}: ${err.message}`));
        return undefined;
      }
      throw err;
    }
  }
}
