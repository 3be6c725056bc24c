// The `statefulset` controller of kube-controller-manager.
import type { ControllerDescriptor } from '../types.js';
import { CONTROLLERREVISIONS, PODS, PVCS, STATEFULSETS, StatefulSetController } from './controller.js';

export { computeStatus, revisionHashLabel, StatefulSetController, STATEFULSETS, type StatefulSetStatus } from './controller.js';
export { claimOwners, newMemberPod, podNameLabel } from './identity.js';

/** kube's default `--concurrent-statefulset-syncs`. */
export const DEFAULT_STATEFULSET_SYNCS = 5;

export const statefulSetControllerDescriptor: ControllerDescriptor = {
  name: 'statefulset',
  requires: [
    { group: 'apps', resource: 'statefulsets' },
    { group: 'apps', resource: 'controllerrevisions' },
    { group: '', resource: 'pods' },
    { group: '', resource: 'persistentvolumeclaims' },
  ],
  start(ctx) {
    const controller = new StatefulSetController({
      client: ctx.client,
      sets: ctx.informers.informerFor(STATEFULSETS),
      pods: ctx.informers.informerFor(PODS),
      revisions: ctx.informers.informerFor(CONTROLLERREVISIONS),
      claims: ctx.informers.informerFor(PVCS),
      clock: ctx.clock,
      recorder: ctx.eventRecorder('statefulset-controller'),
      onError: ctx.onError,
    });
    controller.start(ctx.options.concurrentStatefulSetSyncs ?? DEFAULT_STATEFULSET_SYNCS);
    return controller;
  },
};
