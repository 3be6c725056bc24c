// The availability controller (kube's AvailableConditionController): every APIService's
// `Available` condition, from its Service and Endpoints and, for a remote one, a discovery
// GET; the resources a remote lists and its OpenAPI document are fetched on the same pass.
import { isApiError } from '../apimachinery/errors.js';
import type { Clock } from '../apimachinery/clock.js';
import type { Informer } from '../client/informer.js';
import type { ApiClient } from '../client/types.js';
import { ExponentialBackoff, runWorkers, WorkQueue } from '../client/workqueue.js';
import { availabilityAfterCheck, availabilityBeforeCheck, parseAPIService, sameCondition, withCondition, type APIServiceInfo } from './apiservice.js';
import { apiServicesResource } from './autoregistration.js';
import { DISCOVERY_CHECK_TIMEOUT_MS, type RemoteOpenApi } from './openapi.js';
import { endpointURL, getJSON, resourcesOf, type RemoteEndpoint } from './remote.js';

export interface AvailabilityOptions {
  client: ApiClient;
  clock: Clock;
  apiServices: Informer;
  services: Informer;
  endpoints: Informer;
  endpointFor: (a: APIServiceInfo) => RemoteEndpoint | string;
  openapi: RemoteOpenApi;
  /** Called when what discovery lists changed. */
  changed: () => void;
  requestTimeoutMs?: number;
  log: (line: string) => void;
}

export class AvailabilityController {
  private readonly queue = new WorkQueue<string>(new ExponentialBackoff<string>(50, 30_000));
  /** The resources each available remote APIService lists, by APIService name. */
  private readonly remoteResources = new Map<string, Record<string, unknown>[]>();
  private workers: Promise<void> | undefined;
  private readonly cancels = new Map<string, () => void>();
  private stopped = false;

  constructor(private readonly opts: AvailabilityOptions) {}

  enqueue(name: string): void {
    this.queue.add(name);
  }

  resources(name: string): Record<string, unknown>[] | undefined {
    return this.remoteResources.get(name);
  }

  /** Starts the workers. */
  start(): void {
    this.workers = runWorkers(this.queue, (name) => this.sync(name), {
      workers: 2,
      onError: (key, err) => this.opts.log(`${key}: ${err instanceof Error ? err.message : String(err)}`),
    });
  }

  /** Schedules the periodic checks of every APIService and of remote ones' discovery. */
  schedule(resyncMs: number, discoveryRefreshMs: number): void {
    const every = (id: string, ms: number, remoteOnly: boolean): void => {
      const tick = (): void => {
        if (this.stopped) return;
        for (const o of this.opts.apiServices.list()) if (!remoteOnly || parseAPIService(o).service) this.queue.add(o.metadata?.name ?? '');
        this.cancels.set(id, this.opts.clock.schedule(ms, tick));
      };
      this.cancels.set(id, this.opts.clock.schedule(ms, tick));
    };
    every('resync', resyncMs, false);
    every('discovery', discoveryRefreshMs, true);
  }

  /** Stops scheduling and shuts the queue; `done()` resolves when the workers have finished. */
  stop(): void {
    this.stopped = true;
    for (const c of this.cancels.values()) c();
    this.cancels.clear();
    this.queue.shutDown();
  }

  async done(): Promise<void> {
    await this.workers;
  }

  /** One availability pass over one APIService (kube's AvailableConditionController.sync). */
  private async sync(name: string): Promise<void> {
    const { apiServices, services, endpoints } = this.opts;
    const o = apiServices.get('', name);
    if (!o) {
      if (this.remoteResources.delete(name)) this.opts.changed();
      return;
    }
    const a = parseAPIService(o);
    const ref = a.service;
    let result = availabilityBeforeCheck(a, ref ? services.get(ref.namespace, ref.name) : undefined, ref ? endpoints.get(ref.namespace, ref.name) : undefined);
    if (!result) {
      const ep = this.opts.endpointFor(a);
      const path = `/apis/${a.group}/${a.version}`;
      if (typeof ep === 'string') {
        result = availabilityAfterCheck(`https://${ref!.name}.${ref!.namespace}.svc${path}`, ep);
      } else {
        const url = endpointURL(ep, path);
        let error: string | undefined;
        try {
          const answer = await getJSON(ep, path, Math.min(DISCOVERY_CHECK_TIMEOUT_MS, this.opts.requestTimeoutMs ?? DISCOVERY_CHECK_TIMEOUT_MS));
          if (answer.status < 200 || answer.status >= 300) error = `bad status from ${url}: ${answer.status}`;
          else {
            this.setResources(name, resourcesOf(answer.body, `${a.group}/${a.version}`));
            await this.opts.openapi.fetch(ep, a.group, a.version);
          }
        } catch (err) {
          error = err instanceof Error ? err.message : String(err);
        }
        result = availabilityAfterCheck(url, error);
      }
    }
    if (result.status !== 'True') {
      this.opts.openapi.forget(a.group, a.version);
      if (this.remoteResources.delete(name)) this.opts.changed();
    }
    if (sameCondition(o, result)) return;
    try {
      await this.opts.client.update(apiServicesResource(), '', withCondition(o, result, this.opts.clock.now()), 'status');
    } catch (err) {
      if (isApiError(err) && (err.code === 404 || err.code === 409)) {
        if (err.code === 409) this.queue.addAfter(name, 100);
        return;
      }
      throw err;
    }
  }

  private setResources(name: string, resources: Record<string, unknown>[]): void {
    const before = this.remoteResources.get(name);
    if (before && JSON.stringify(before) === JSON.stringify(resources)) return;
    this.remoteResources.set(name, resources);
    this.opts.changed();
  }
}
