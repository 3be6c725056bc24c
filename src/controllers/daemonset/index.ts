// The `daemonset` controller of kube-controller-manager.
import type { ControllerDescriptor } from '../types.js';
import { CONTROLLERREVISIONS, DAEMONSETS, DaemonSetController, NODES, PODS } from './controller.js';

export { computeStatus, DAEMONSETS, DaemonSetController, isPodUpdated, newDaemonPod, POD_TEMPLATE_GENERATION_LABEL, TEMPLATE_GENERATION_ANNOTATION, templateGeneration, type DaemonSetStatus } from './controller.js';
export { nodeShouldRunDaemonPod, targetNodeName, withDaemonTolerations, withNodeAffinity } from './placement.js';

/** kube's default `--concurrent-daemonset-syncs`. */
export const DEFAULT_DAEMONSET_SYNCS = 2;

export const daemonSetControllerDescriptor: ControllerDescriptor = {
  name: 'daemonset',
  requires: [
    { group: 'apps', resource: 'daemonsets' },
    { group: 'apps', resource: 'controllerrevisions' },
    { group: '', resource: 'pods' },
    { group: '', resource: 'nodes' },
  ],
  start(ctx) {
    const controller = new DaemonSetController({
      client: ctx.client,
      daemonSets: ctx.informers.informerFor(DAEMONSETS),
      pods: ctx.informers.informerFor(PODS),
      nodes: ctx.informers.informerFor(NODES),
      revisions: ctx.informers.informerFor(CONTROLLERREVISIONS),
      clock: ctx.clock,
      recorder: ctx.eventRecorder('daemonset-controller'),
      onError: ctx.onError,
    });
    controller.start(ctx.options.concurrentDaemonSetSyncs ?? DEFAULT_DAEMONSET_SYNCS);
    return controller;
  },
};
