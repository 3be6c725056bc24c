// The endpoint controller (kube-controller-manager's `endpoint`): keeps the Endpoints of
// every Service with a selector equal to the pods it selects. Services without a selector
// (the API server's own among them) are left to whoever writes their Endpoints.
import { deepEqual } from '../../apimachinery/equality.js';
import { isApiError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import type { EventRecorder } from '../../client/events.js';
import { keyOf, splitKey, type Informer } from '../../client/informer.js';
import { NAMESPACE_INDEX } from '../../client/indexes.js';
import type { ApiClient } from '../../client/types.js';
import { longDomainKey } from '../../naming/index.js';
import { KeyedLoop } from '../keyed-loop.js';
import type { Clock } from '../../apimachinery/clock.js';
import type { ControllerDescriptor } from '../types.js';
import { addressCount, desiredSubsets, truncateSubsets, type EndpointSubset } from './subsets.js';
import { ENDPOINTS, isHeadless, PODS, selectedPods, serviceSelector, SERVICES, TriggerTimeTracker } from './util.js';

export interface EndpointControllerOptions {
  client: ApiClient;
  services: Informer;
  pods: Informer;
  endpoints: Informer;
  clock: Clock;
  recorder: EventRecorder;
  onError(err: unknown): void;
}

/** The Endpoints' labels: the Service's, with the headless marker exactly when it is headless. */
export function endpointsLabels(svc: KubeObject): Record<string, string> {
  const labels: Record<string, string> = { ...(svc.metadata?.labels ?? {}) };
  const headless = longDomainKey('headless', 'service');
  if (isHeadless(svc)) labels[headless] = '';
  else delete labels[headless];
  return labels;
}

/** The Services in the pod's namespace that select it. */
export function servicesSelecting(services: readonly KubeObject[], pod: KubeObject): KubeObject[] {
  const ns = pod.metadata?.namespace ?? '';
  return services.filter((s) => {
    if ((s.metadata?.namespace ?? '') !== ns) return false;
    const sel = serviceSelector(s);
    if (!sel) return false;
    const labels = pod.metadata?.labels ?? {};
    return Object.entries(sel).every(([k, v]) => Object.hasOwn(labels, k) && labels[k] === v);
  });
}

/**
 * Queues a Service when it changes and when a pod it selects (before or after the change)
 * does: what both the Endpoints and the EndpointSlice controllers sync on. Returns the
 * function that queues the Services selecting given pods.
 */
export function followServicesAndPods(loop: KeyedLoop, services: Informer, pods: Informer): (...changed: KubeObject[]) => void {
  const enqueue = (o: KubeObject): void => loop.add(keyOf(o));
  loop.onStop(services.addEventHandler({ onAdd: enqueue, onUpdate: (_o, n) => enqueue(n), onDelete: enqueue }));
  const onPod = (...changed: KubeObject[]): void => {
    const keys = new Set<string>();
    for (const p of changed) for (const s of servicesSelecting(services.list(), p)) keys.add(keyOf(s));
    for (const k of keys) loop.add(k);
  };
  loop.onStop(pods.addEventHandler({ onAdd: (p) => onPod(p), onUpdate: (o, n) => onPod(o, n), onDelete: (p) => onPod(p) }));
  return onPod;
}

export class EndpointController extends KeyedLoop {
  private readonly triggers = new TriggerTimeTracker();

  constructor(private readonly opts: EndpointControllerOptions) {
    super(opts.clock, 'endpoint');
    const enqueue = (o: KubeObject): void => this.add(keyOf(o));
    followServicesAndPods(this, opts.services, opts.pods);
    // An Endpoints deleted under a Service that should have one is written again.
    this.onStop(opts.endpoints.addEventHandler({ onDelete: enqueue }));
  }

  start(workers: number): void {
    this.run((key) => this.sync(key), workers, this.opts.onError);
  }

  async sync(key: string): Promise<void> {
    if (!(await this.synced(this.opts.services, this.opts.pods, this.opts.endpoints))) return;
    const { namespace, name } = splitKey(key);
    const svc = this.opts.services.getByKey(key);
    if (!svc) {
      this.triggers.forget(key);
      // The Service's deletion usually takes its Endpoints along; this covers the rest.
      const ep = this.opts.endpoints.getByKey(key);
      if (!ep) return;
      try {
        await this.opts.client.delete(ENDPOINTS, namespace, name);
      } catch (err) {
        if (!isApiError(err) || err.code !== 404) throw err;
      }
      return;
    }
    if (!serviceSelector(svc)) return;
    const pods = selectedPods(svc, this.opts.pods.byIndex(NAMESPACE_INDEX, svc.metadata?.namespace ?? ''));
    const triggerTime = this.triggers.compute(key, svc, pods);
    let subsets: EndpointSubset[] = desiredSubsets(svc, pods);
    const overCapacity = addressCount(subsets) > 1000;
    if (overCapacity) subsets = truncateSubsets(subsets);
    const current = this.opts.endpoints.getByKey(key);
    const labels = endpointsLabels(svc);
    const capacityKey = longDomainKey('over-capacity', 'endpoints');
    const triggerKey = longDomainKey('last-change-trigger-time', 'endpoints');
    const currentSubsets = Array.isArray(current?.subsets) ? current.subsets : [];
    const currentAnnotations = current?.metadata?.annotations ?? {};
    if (
      current &&
      deepEqual(currentSubsets, subsets) &&
      deepEqual(current.metadata?.labels ?? {}, labels) &&
      (currentAnnotations[capacityKey] === 'truncated') === overCapacity
    ) {
      return;
    }
    const annotations: Record<string, string> = { ...currentAnnotations };
    if (triggerTime) annotations[triggerKey] = triggerTime;
    else delete annotations[triggerKey];
    if (overCapacity) annotations[capacityKey] = 'truncated';
    else delete annotations[capacityKey];
    const metadata: NonNullable<KubeObject['metadata']> = { ...(current?.metadata ?? {}), name, namespace, labels };
    if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
    else delete metadata.annotations;
    const next: KubeObject = { apiVersion: 'v1', kind: 'Endpoints', metadata };
    if (subsets.length > 0) next.subsets = subsets;
    try {
      if (current) await this.opts.client.update(ENDPOINTS, namespace, next);
      else await this.opts.client.create(ENDPOINTS, namespace, next);
    } catch (err) {
      // A namespace being deleted refuses new objects: nothing left to do for it.
      if (!current && isApiError(err) && err.code === 403 && /being terminated/.test(err.message)) return;
      if (isApiError(err) && (err.code === 409 || err.code === 404)) throw err;
      this.opts.recorder.eventf(
        svc,
        undefined,
        'Warning',
        current ? 'FailedToUpdateEndpoint' : 'FailedToCreateEndpoint',
        current ? 'FailedToUpdateEndpoint' : 'FailedToCreateEndpoint',
        current ? `Failed to update endpoint ${namespace}/${name}: ${errMessage(err)}` : `Failed to create endpoint for service ${namespace}/${name}: ${errMessage(err)}`,
      );
      throw err;
    }
  }
}

const errMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export const endpointControllerDescriptor: ControllerDescriptor = {
  name: 'endpoint',
  requires: [
    { group: '', resource: 'services' },
    { group: '', resource: 'endpoints' },
    { group: '', resource: 'pods' },
  ],
  start(ctx) {
    const controller = new EndpointController({
      client: ctx.client,
      services: ctx.informers.informerFor(SERVICES),
      pods: ctx.informers.informerFor(PODS),
      endpoints: ctx.informers.informerFor(ENDPOINTS),
      clock: ctx.clock,
      recorder: ctx.eventRecorder('endpoint-controller'),
      onError: ctx.onError,
    });
    controller.start(ctx.options.concurrentEndpointSyncs ?? 5);
    return controller;
  },
};
