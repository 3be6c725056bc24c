// The `replicationcontroller` controller of kube-controller-manager: the ReplicaSet logic over
// ReplicationControllers (a map selector, core/v1), as kube runs it.
import { PODS } from '../replicaset/controller.js';
import { REPLICATIONCONTROLLERS, ReplicaSetController, replicationControllerKind } from '../replicaset/index.js';
import type { ControllerDescriptor } from '../types.js';

export const replicationControllerDescriptor: ControllerDescriptor = {
  name: 'replicationcontroller',
  requires: [{ group: '', resource: 'replicationcontrollers' }, { group: '', resource: 'pods' }],
  start(ctx) {
    const controller = new ReplicaSetController({
      kind: replicationControllerKind(),
      client: ctx.client,
      owners: ctx.informers.informerFor(REPLICATIONCONTROLLERS),
      pods: ctx.informers.informerFor(PODS),
      clock: ctx.clock,
      recorder: ctx.eventRecorder('replication-controller'),
      onError: ctx.onError,
    });
    controller.start(ctx.options.concurrentRCSyncs);
    return controller;
  },
};
