// The endpointslicemirroring controller (kube-controller-manager's): EndpointSlices that
// mirror the Endpoints users write for Services without a selector.
import { isApiError } from '../../apimachinery/errors.js';
import type { Clock } from '../../apimachinery/clock.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { keyOf, splitKey, type Informer } from '../../client/informer.js';
import type { ApiClient } from '../../client/types.js';
import { ENDPOINTS, serviceSelector, SERVICES } from '../endpoint/util.js';
import { managedSliceServiceKey, SliceTracker } from '../endpointslice/controller.js';
import { endpointSlicesResource } from '../endpointslice/reconcile.js';
import { KeyedLoop } from '../keyed-loop.js';
import type { ControllerDescriptor } from '../types.js';
import { mirroringControllerName, reconcileMirror, shouldMirror } from './mirror.js';

export interface MirroringControllerOptions {
  client: ApiClient;
  services: Informer;
  endpoints: Informer;
  slices: Informer;
  clock: Clock;
  maxEndpointsPerSubset: number;
  onError(err: unknown): void;
}

export class EndpointSliceMirroringController extends KeyedLoop {
  private readonly tracker = new SliceTracker();

  constructor(private readonly opts: MirroringControllerOptions) {
    super(opts.clock, 'endpoint_slice_mirroring');
    const enqueue = (o: KubeObject): void => this.add(keyOf(o));
    this.onStop(opts.endpoints.addEventHandler({ onAdd: enqueue, onUpdate: (_o, n) => enqueue(n), onDelete: enqueue }));
    this.onStop(opts.services.addEventHandler({ onAdd: enqueue, onUpdate: (_o, n) => enqueue(n), onDelete: enqueue }));
    const onSlice = (s: KubeObject): void => {
      const key = managedSliceServiceKey(s, mirroringControllerName());
      if (key) this.add(key);
    };
    this.onStop(opts.slices.addEventHandler({ onAdd: onSlice, onUpdate: (_o, n) => onSlice(n), onDelete: onSlice }));
  }

  start(workers: number): void {
    this.run((key) => this.sync(key), workers, this.opts.onError);
  }

  async sync(key: string): Promise<void> {
    if (!(await this.synced(this.opts.services, this.opts.endpoints, this.opts.slices))) return;
    const { namespace } = splitKey(key);
    const existing = this.opts.slices.list().filter((s) => managedSliceServiceKey(s, mirroringControllerName()) === key);
    if (this.tracker.stale(key, existing)) {
      this.wakeAfter(key, 100);
      return;
    }
    const endpoints = this.opts.endpoints.getByKey(key);
    const svc = this.opts.services.getByKey(key);
    const gvr = endpointSlicesResource();
    const mirror = endpoints !== undefined && shouldMirror(endpoints, svc, svc !== undefined && serviceSelector(svc) !== undefined);
    const plan = mirror ? reconcileMirror(endpoints, existing, this.opts.maxEndpointsPerSubset) : { create: [], update: [], delete: [...existing] };
    for (const s of plan.create) {
      try {
        this.tracker.wrote(key, await this.opts.client.create(gvr, namespace, s));
      } catch (err) {
        if (isApiError(err) && err.code === 403 && /being terminated/.test(err.message)) return;
        throw err;
      }
    }
    for (const s of plan.update) this.tracker.wrote(key, await this.opts.client.update(gvr, namespace, s));
    for (const s of plan.delete) {
      try {
        await this.opts.client.delete(gvr, namespace, s.metadata?.name ?? '');
      } catch (err) {
        if (!isApiError(err) || err.code !== 404) throw err;
      }
      this.tracker.deleted(key, s);
    }
    if (!endpoints && !svc) this.tracker.forget(key);
  }
}

export const endpointSliceMirroringControllerDescriptor: ControllerDescriptor = {
  name: 'endpointslicemirroring',
  // The served group's name depends on the flavor: read when the manager asks.
  get requires() {
    return [
      { group: '', resource: 'services' },
      { group: '', resource: 'endpoints' },
      { group: endpointSlicesResource().group, resource: 'endpointslices' },
    ];
  },
  start(ctx) {
    const controller = new EndpointSliceMirroringController({
      client: ctx.client,
      services: ctx.informers.informerFor(SERVICES),
      endpoints: ctx.informers.informerFor(ENDPOINTS),
      slices: ctx.informers.informerFor(endpointSlicesResource()),
      clock: ctx.clock,
      maxEndpointsPerSubset: ctx.options.mirroringMaxEndpointsPerSubset ?? 1000,
      onError: ctx.onError,
    });
    controller.start(ctx.options.mirroringConcurrentServiceEndpointSyncs ?? 5);
    return controller;
  },
};
