// The in-process controllers and the pieces later controllers reuse (informer, work queue).
import type { ApiClient } from '../client/types.js';
import type { ResourceTable } from '../registry/types.js';
import { SharedInformerFactory } from './informer-factory.js';
import { startNamespaceController, type RunningController } from './namespace/controller.js';

export { Informer, keyOf, splitKey, type InformerOptions, type ResourceEventHandler } from './informer.js';
export { SharedInformerFactory, type SharedInformerOptions } from './informer-factory.js';
export { ExponentialBackoff, runWorkers, WorkQueue, type RateLimiter } from './workqueue.js';
export {
  NamespaceController,
  NAMESPACES,
  startNamespaceController,
  type NamespaceControllerOptions,
  type RunningController,
} from './namespace/controller.js';
export { deleteAllContent, deletableResources, deletionConditions, type NamespaceCondition } from './namespace/deleter.js';
export { ensureSystemNamespaces, systemNamespaceNames } from './system-namespaces.js';

export interface ControllersOptions {
  /** A privileged client (the server passes a LoopbackClient). */
  client: ApiClient;
  /** The served resources, read at the time of each pass (it changes at run time). */
  table: ResourceTable;
  /** Informers shared with other consumers (admission); one is made (and stopped) when absent. */
  informers?: SharedInformerFactory;
  /** Called with errors the controllers recover from (logged by the caller). */
  onError?: (controller: string, err: unknown) => void;
}

/** Starts the built-in controllers, namespace controller first. */
export function startControllers(opts: ControllersOptions): RunningController {
  const informers =
    opts.informers ?? new SharedInformerFactory(opts.client, { resyncMs: 5 * 60_000, onError: (err) => opts.onError?.('informer', err) });
  const running: RunningController[] = [];
  running.push(
    startNamespaceController({
      client: opts.client,
      table: opts.table,
      informers,
      onError: (err) => opts.onError?.('namespace', err),
    }),
  );
  informers.start();
  return {
    async stop() {
      for (const controller of running.reverse()) await controller.stop();
      if (!opts.informers) await informers.stop();
    },
  };
}
