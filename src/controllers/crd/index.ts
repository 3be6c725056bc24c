// The API server's own controllers of CustomResourceDefinitions (apiextensions-apiserver's
// naming, establishing and finalizer controllers). They run with every server, whatever
// `--controllers` selects, since serving custom resources depends on them.
import type { RunningController } from '../types.js';
import type { SharedInformerFactory } from '../../client/informer-factory.js';
import type { ApiClient } from '../../client/types.js';
import type { CRDController } from './controller.js';
import { EstablishingController } from './establishing.js';
import { FinalizerController } from './finalizer.js';
import { NamingController } from './naming.js';

export { calculateNamesAndConditions, NamingController, type NamesResult } from './naming.js';
export { EstablishingController } from './establishing.js';
export { deleteInstances, deletionVersion, FinalizerController, type FinalizerControllerOptions } from './finalizer.js';

export interface CRDControllersOptions {
  client: ApiClient;
  informers?: SharedInformerFactory;
  onError?: (controller: string, err: unknown) => void;
}

export function startCRDControllers(opts: CRDControllersOptions): RunningController & { idle(): boolean } {
  const base = { client: opts.client, informers: opts.informers };
  const controllers: CRDController[] = [
    new NamingController({ ...base, onError: (err) => opts.onError?.('crd-naming', err) }),
    new EstablishingController({ ...base, onError: (err) => opts.onError?.('crd-establishing', err) }),
    new FinalizerController({ ...base, onError: (err) => opts.onError?.('crd-finalizer', err) }),
  ];
  for (const c of controllers) c.start();
  return {
    idle: () => controllers.every((c) => c.idle()),
    async stop() {
      for (const c of controllers.reverse()) await c.stop();
    },
  };
}
