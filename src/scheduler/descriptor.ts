// The scheduler as a component the controller manager runs (informers, events, clock, and the
// `kube-scheduler` Lease when it campaigns), in the API server process or out of it.
import type { ControllerDescriptor } from '../controllers/types.js';
import { Scheduler } from './scheduler.js';

/** kube-scheduler's Lease, in the system namespace. */
export const SCHEDULER_LEASE_NAME = 'kube-scheduler';

export function schedulerDescriptor(): ControllerDescriptor {
  return {
    name: 'scheduler',
    requires: [
      { group: '', resource: 'pods' },
      { group: '', resource: 'nodes' },
    ],
    start: (ctx) =>
      new Scheduler({
        client: ctx.client,
        informers: ctx.informers,
        recorder: ctx.eventRecorder('default-scheduler'),
        clock: ctx.clock,
        onError: ctx.onError,
      }).start(),
  };
}
