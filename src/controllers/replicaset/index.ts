// The `replicaset` controller of kube-controller-manager.
import { PODS, REPLICASETS, ReplicaSetController, replicaSetKind } from './controller.js';
import type { ControllerDescriptor } from '../types.js';

export {
  BURST_REPLICAS,
  computeStatus,
  desiredReplicas,
  podFromTemplate,
  ReplicaSetController,
  replicaSetKind,
  replicationControllerKind,
  REPLICASETS,
  REPLICATIONCONTROLLERS,
  type ReplicaSetKind,
  type ReplicaSetStatus,
} from './controller.js';
export { colocationRanks, podDeletionCostAnnotation, rankPodsForDeletion } from './ranking.js';

export const replicaSetControllerDescriptor: ControllerDescriptor = {
  name: 'replicaset',
  requires: [{ group: 'apps', resource: 'replicasets' }, { group: '', resource: 'pods' }],
  start(ctx) {
    const controller = new ReplicaSetController({
      kind: replicaSetKind(),
      client: ctx.client,
      owners: ctx.informers.informerFor(REPLICASETS),
      pods: ctx.informers.informerFor(PODS),
      clock: ctx.clock,
      recorder: ctx.eventRecorder('replicaset-controller'),
      onError: ctx.onError,
    });
    controller.start(ctx.options.concurrentReplicaSetSyncs);
    return controller;
  },
};
