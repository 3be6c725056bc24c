// The endpointslice controller (kube-controller-manager's `endpointslice`): the
// EndpointSlices of every Service with a selector, planned by `reconcileSlices`.
import { isApiError } from '../../apimachinery/errors.js';
import type { Clock } from '../../apimachinery/clock.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { splitKey, type Informer } from '../../client/informer.js';
import { NAMESPACE_INDEX, NODE_NAME_INDEX, podsByNodeName } from '../../client/indexes.js';
import type { ApiClient } from '../../client/types.js';
import { longDomainKey } from '../../naming/index.js';
import { nodeLabelKey } from '../../apis/core/helpers/node.js';
import { followServicesAndPods } from '../endpoint/controller.js';
import { NODES, PODS, selectedPods, serviceSelector, SERVICES, specOf, TriggerTimeTracker } from '../endpoint/util.js';
import { KeyedLoop } from '../keyed-loop.js';
import type { ControllerDescriptor } from '../types.js';
import { controllerName, endpointSlicesResource, managedByKey, reconcileSlices, serviceNameKey } from './reconcile.js';

export interface EndpointSliceControllerOptions {
  client: ApiClient;
  services: Informer;
  pods: Informer;
  nodes: Informer;
  slices: Informer;
  clock: Clock;
  maxEndpointsPerSlice: number;
  onError(err: unknown): void;
}

/** Slices labelled as `manager`'s for a Service, keyed `namespace/service`; undefined for others. */
export function managedSliceServiceKey(slice: KubeObject, manager: string): string | undefined {
  const labels = slice.metadata?.labels ?? {};
  const svc = labels[serviceNameKey()];
  if (labels[managedByKey()] !== manager || !svc) return undefined;
  return `${slice.metadata?.namespace ?? ''}/${svc}`;
}

/**
 * What the controller wrote and its informer may not show yet (kube's slice tracker): a sync
 * that would plan from an older view waits for it instead of writing twice.
 */
export class SliceTracker {
  private readonly expected = new Map<string, Map<string, { generation: number } | 'deleted'>>();

  wrote(serviceKey: string, slice: KubeObject): void {
    this.entry(serviceKey).set(slice.metadata?.name ?? '', { generation: slice.metadata?.generation ?? 0 });
  }

  deleted(serviceKey: string, slice: KubeObject): void {
    this.entry(serviceKey).set(slice.metadata?.name ?? '', 'deleted');
  }

  /** Whether `slices` (the informer's) lag behind what was written for the Service; settled entries are forgotten. */
  stale(serviceKey: string, slices: readonly KubeObject[]): boolean {
    const e = this.expected.get(serviceKey);
    if (!e) return false;
    const byName = new Map(slices.map((s) => [s.metadata?.name ?? '', s]));
    for (const [name, want] of e) {
      const got = byName.get(name);
      const settled = want === 'deleted' ? !got : got !== undefined && (got.metadata?.generation ?? 0) >= want.generation;
      if (settled) e.delete(name);
    }
    if (e.size === 0) this.expected.delete(serviceKey);
    return e.size > 0;
  }

  forget(serviceKey: string): void {
    this.expected.delete(serviceKey);
  }

  private entry(key: string): Map<string, { generation: number } | 'deleted'> {
    let e = this.expected.get(key);
    if (!e) this.expected.set(key, (e = new Map()));
    return e;
  }
}

export class EndpointSliceController extends KeyedLoop {
  private readonly triggers = new TriggerTimeTracker();
  private readonly tracker = new SliceTracker();

  constructor(private readonly opts: EndpointSliceControllerOptions) {
    super(opts.clock, 'endpoint_slice');
    const onPod = followServicesAndPods(this, opts.services, opts.pods);
    opts.pods.addIndexers({ [NODE_NAME_INDEX]: podsByNodeName });
    // A node's zone is in its pods' endpoints.
    const onNode = (o: KubeObject | undefined, n: KubeObject): void => {
      const zone = nodeLabelKey('zone');
      if (o && o.metadata?.labels?.[zone] === n.metadata?.labels?.[zone]) return;
      const name = n.metadata?.name ?? '';
      onPod(...(opts.pods.byIndex(NODE_NAME_INDEX, name) as KubeObject[]));
    };
    this.onStop(opts.nodes.addEventHandler({ onAdd: (n) => onNode(undefined, n), onUpdate: (o, n) => onNode(o, n) }));
    const onSlice = (s: KubeObject): void => {
      const key = managedSliceServiceKey(s, controllerName());
      if (key) this.add(key);
    };
    this.onStop(opts.slices.addEventHandler({ onAdd: onSlice, onUpdate: (_o, n) => onSlice(n), onDelete: onSlice }));
  }

  start(workers: number): void {
    this.run((key) => this.sync(key), workers, this.opts.onError);
  }

  async sync(key: string): Promise<void> {
    if (!(await this.synced(this.opts.services, this.opts.pods, this.opts.nodes, this.opts.slices))) return;
    const svc = this.opts.services.getByKey(key);
    if (!svc) {
      // The garbage collector removes the slices with their owner.
      this.triggers.forget(key);
      this.tracker.forget(key);
      return;
    }
    if (!serviceSelector(svc) || specOf(svc).type === 'ExternalName') return;
    const { namespace } = splitKey(key);
    const existing = this.opts.slices.list().filter((s) => managedSliceServiceKey(s, controllerName()) === key);
    if (this.tracker.stale(key, existing)) {
      // The informer has not caught up with the last writes: try again shortly.
      this.wakeAfter(key, 100);
      return;
    }
    const pods = selectedPods(svc, this.opts.pods.byIndex(NAMESPACE_INDEX, namespace));
    const triggerTime = this.triggers.compute(key, svc, pods);
    const plan = reconcileSlices({
      service: svc,
      pods,
      existing,
      node: (name) => this.opts.nodes.get('', name),
      maxEndpointsPerSlice: this.opts.maxEndpointsPerSlice,
    });
    const triggerKey = longDomainKey('last-change-trigger-time', 'endpoints');
    const annotate = (s: KubeObject): KubeObject => {
      const annotations = { ...(s.metadata?.annotations ?? {}) };
      if (triggerTime) annotations[triggerKey] = triggerTime;
      else delete annotations[triggerKey];
      const metadata = { ...s.metadata };
      if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
      else delete metadata.annotations;
      return { ...s, metadata };
    };
    const gvr = endpointSlicesResource();
    // No new slices for a Service being deleted: the garbage collector would race them.
    if (!svc.metadata?.deletionTimestamp) {
      for (const s of plan.create) {
        try {
          this.tracker.wrote(key, await this.opts.client.create(gvr, namespace, annotate(s)));
        } catch (err) {
          if (isApiError(err) && err.code === 403 && /being terminated/.test(err.message)) return;
          throw err;
        }
      }
    }
    for (const s of plan.update) this.tracker.wrote(key, await this.opts.client.update(gvr, namespace, annotate(s)));
    for (const s of plan.delete) {
      try {
        await this.opts.client.delete(gvr, namespace, s.metadata?.name ?? '');
      } catch (err) {
        if (!isApiError(err) || err.code !== 404) throw err;
      }
      this.tracker.deleted(key, s);
    }
  }
}

export const endpointSliceControllerDescriptor: ControllerDescriptor = {
  name: 'endpointslice',
  // The served group's name depends on the flavor: read when the manager asks.
  get requires() {
    return [
      { group: '', resource: 'services' },
      { group: '', resource: 'pods' },
      { group: endpointSlicesResource().group, resource: 'endpointslices' },
    ];
  },
  start(ctx) {
    const controller = new EndpointSliceController({
      client: ctx.client,
      services: ctx.informers.informerFor(SERVICES),
      pods: ctx.informers.informerFor(PODS),
      nodes: ctx.informers.informerFor(NODES),
      slices: ctx.informers.informerFor(endpointSlicesResource()),
      clock: ctx.clock,
      maxEndpointsPerSlice: ctx.options.maxEndpointsPerSlice ?? 100,
      onError: ctx.onError,
    });
    controller.start(ctx.options.concurrentServiceEndpointSyncs ?? 5);
    return controller;
  },
};
