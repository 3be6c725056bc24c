#!/usr/bin/env node
// orch-controller-manager: the controllers out of process against an API server
// (`--kubeconfig`), campaigning on the `kube-controller-manager` Lease.
import { componentMain } from './component-main.js';
import { controllerManagerFlagDefinitions, startControllerManager } from './controller-manager-app.js';

componentMain({
  name: 'orch-controller-manager',
  flags: controllerManagerFlagDefinitions,
  start: startControllerManager,
  started: (_flags, running) => `controllers: ${running.manager.selectedControllers().join(', ') || '(none)'}`,
});
