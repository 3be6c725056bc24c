#!/usr/bin/env node
// orch-scheduler: the scheduler (kube-scheduler's default profile) out of process against an
// API server (`--kubeconfig`), campaigning on the `kube-scheduler` Lease.
import { componentMain } from './component-main.js';
import { schedulerFlagDefinitions, startScheduler } from './scheduler-app.js';

componentMain({
  name: 'orch-scheduler',
  flags: schedulerFlagDefinitions,
  start: startScheduler,
  started: (flags) => `started${flags.boolean('leader-elect') === false ? '' : ', campaigning on the Lease'}`,
});
