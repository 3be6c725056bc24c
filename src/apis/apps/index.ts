// The apps group's kinds.
import type { KindSpec } from '../strategy.js';
import { controllerRevisions, daemonSets, deployments, replicaSets, statefulSets } from './workloads.js';

export const appsKinds: Record<string, KindSpec> = {
  ControllerRevision: controllerRevisions,
  DaemonSet: daemonSets,
  Deployment: deployments,
  ReplicaSet: replicaSets,
  StatefulSet: statefulSets,
};
