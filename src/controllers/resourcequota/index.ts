// The resource quota controller: every ResourceQuota's `status.hard` and `status.used`.
import type { ControllerDescriptor } from '../types.js';
import { ResourceQuotaController } from './controller.js';

export { ResourceQuotaController, RESOURCEQUOTAS, type ResourceQuotaControllerOptions } from './controller.js';

export const resourceQuotaControllerDescriptor: ControllerDescriptor = {
  name: 'resourcequota',
  requires: [{ group: '', resource: 'resourcequotas' }],
  start(ctx) {
    const controller = new ResourceQuotaController({
      client: ctx.client,
      informers: ctx.informers,
      clock: ctx.clock,
      discover: () => ctx.discover(),
      onResourcesChanged: (listener) => ctx.onResourcesChanged(listener),
      resyncPeriodMs: ctx.options.resourceQuotaSyncPeriodMs ?? 300_000,
      onError: ctx.onError,
    });
    controller.start(ctx.options.concurrentResourceQuotaSyncs ?? 5);
    return controller;
  },
};
