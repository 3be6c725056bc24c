// The `deployment` controller of kube-controller-manager.
import { DeploymentController, DEPLOYMENTS } from './controller.js';
import type { ControllerDescriptor } from '../types.js';

export { DeploymentController, DEPLOYMENTS, selectorOf } from './controller.js';
export { computeHash, safeEncodeString } from './hash.js';
export { deploymentAnnotation, DEFAULT_LABEL_KEY } from './util.js';

export const deploymentControllerDescriptor: ControllerDescriptor = {
  name: 'deployment',
  requires: [
    { group: 'apps', resource: 'deployments' },
    { group: 'apps', resource: 'replicasets' },
    { group: '', resource: 'pods' },
  ],
  start(ctx) {
    const controller = new DeploymentController({
      client: ctx.client,
      deployments: ctx.informers.informerFor(DEPLOYMENTS),
      replicaSets: ctx.informers.informerFor({ group: 'apps', version: 'v1', resource: 'replicasets' }),
      pods: ctx.informers.informerFor({ group: '', version: 'v1', resource: 'pods' }),
      clock: ctx.clock,
      recorder: ctx.eventRecorder('deployment-controller'),
      onError: ctx.onError,
    });
    controller.start(ctx.options.concurrentDeploymentSyncs);
    return controller;
  },
};
