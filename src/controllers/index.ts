// The in-process controllers (the informers and the work queue they use live in client/).
import { readFileSync } from 'node:fs';
import type { ApiClient } from '../client/types.js';
import type { ResourceTable } from '../rest/index.js';
import { SharedInformerFactory } from '../client/informer-factory.js';
import { crdResource } from '../apis/apiextensions/index.js';
import { startCRDControllers } from './crd/index.js';
import { startNamespaceController } from './namespace/controller.js';
import type { RunningController } from './types.js';
import { ensureSystemPriorityClasses } from './priority-classes.js';
import { startRootCAPublisher } from './root-ca-publisher.js';
import { startServiceAccountController } from './serviceaccounts.js';

export {
  NamespaceController,
  NAMESPACES,
  startNamespaceController,
  type NamespaceControllerOptions,
} from './namespace/controller.js';
export type * from './types.js';
export { deleteAllContent, deletableResources, deletionConditions, type NamespaceCondition } from './namespace/deleter.js';
export { ensureSystemNamespaces, systemNamespaceNames } from './system-namespaces.js';
export { PerNamespaceObjectController, type PerNamespaceObjectSpec, type PerNamespaceOptions } from './per-namespace.js';
export { defaultServiceAccount, startServiceAccountController } from './serviceaccounts.js';
export { descriptionAnnotation, repairRootCA, rootCAConfigMap, startRootCAPublisher } from './root-ca-publisher.js';
export { ensureSystemPriorityClasses, systemPriorityClasses } from './priority-classes.js';
export { startCRDControllers } from './crd/index.js';

interface ControllersOptions {
  /** A privileged client (the server passes a LoopbackClient). */
  client: ApiClient;
  /** The served resources, read at the time of each pass (it changes at run time). */
  table: ResourceTable;
  /** Informers shared with other consumers (admission); one is made (and stopped) when absent. */
  informers?: SharedInformerFactory;
  /** Called with errors the controllers recover from (logged by the caller). */
  onError?: (controller: string, err: unknown) => void;
  /** Run the service account controller (a `default` ServiceAccount in every namespace). */
  serviceAccounts?: boolean;
  /** The cluster CA (PEM file) the root CA publisher puts in every namespace; no publisher without it. */
  rootCAFile?: string;
  /** Create the system priority classes (system-node-critical, system-cluster-critical) when missing. */
  systemPriorityClasses?: boolean;
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
  // Each runs only where its resource is served (a trimmed table may lack it).
  const served = (resource: string): boolean => opts.table.lookup({ group: '', version: 'v1' }, resource) !== undefined;
  // The definitions' controllers belong to the API server: they run whenever definitions are served.
  const crds = crdResource();
  if (opts.table.lookup({ group: crds.group, version: crds.version }, crds.resource)) {
    running.push(startCRDControllers({ client: opts.client, informers, onError: opts.onError }));
  }
  if (opts.serviceAccounts && served('serviceaccounts')) {
    running.push(startServiceAccountController({ client: opts.client, informers, onError: (err) => opts.onError?.('serviceaccount', err) }));
  }
  if (opts.rootCAFile && served('configmaps')) {
    const caPem = readFileSync(opts.rootCAFile, 'utf8');
    running.push(startRootCAPublisher(caPem, { client: opts.client, informers, onError: (err) => opts.onError?.('root-ca-cert-publisher', err) }));
  }
  // The system priority classes, once per start (they are kept, not reconciled).
  const bootstrap = opts.systemPriorityClasses
    ? ensureSystemPriorityClasses(opts.client).catch((err: unknown) => opts.onError?.('priority-classes', err))
    : Promise.resolve();
  informers.start();
  return {
    async stop() {
      await bootstrap;
      for (const controller of running.reverse()) await controller.stop();
      if (!opts.informers) await informers.stop();
    },
  };
}
