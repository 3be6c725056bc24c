// The in-process controllers and the pieces later controllers reuse (informer, work queue).
import type { ApiClient } from '../client/types.js';
import type { ResourceTable } from '../registry/types.js';
import { startNamespaceController, type RunningController } from './namespace/controller.js';

export { Informer, keyOf, splitKey, type InformerOptions, type ResourceEventHandler } from './informer.js';
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
  /** Called with errors the controllers recover from (logged by the caller). */
  onError?: (controller: string, err: unknown) => void;
}

/** Starts the built-in controllers, namespace controller first. */
export function startControllers(opts: ControllersOptions): RunningController {
  const running: { name: string; controller: RunningController }[] = [];
  running.push({
    name: 'namespace',
    controller: startNamespaceController({
      client: opts.client,
      table: opts.table,
      onError: (err) => opts.onError?.('namespace', err),
    }),
  });
  return {
    async stop() {
      for (const { controller } of running.reverse()) await controller.stop();
    },
  };
}
