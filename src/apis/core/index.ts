// The core (legacy) group's kinds.
import type { KindSpec } from '../strategy.js';
import { bindings, componentStatuses } from './componentstatus.js';
import { configMaps, secrets } from './config.js';
import { podTemplates, replicationControllers } from './controllers.js';
import { events, eventsV1 } from './event.js';
import { endpoints, limitRanges, resourceQuotas, serviceAccounts } from './misc.js';
import { namespaces } from './namespace.js';
import { nodes } from './node.js';
import { pods } from './pod.js';
import { services } from './service.js';
import { persistentVolumeClaims, persistentVolumes } from './volumes.js';

export const coreKinds: Record<string, KindSpec> = {
  Binding: bindings,
  ComponentStatus: componentStatuses,
  ConfigMap: configMaps,
  Endpoints: endpoints,
  Event: events,
  LimitRange: limitRanges,
  Namespace: namespaces,
  Node: nodes,
  PersistentVolumeClaim: persistentVolumeClaims,
  PersistentVolume: persistentVolumes,
  Pod: pods,
  PodTemplate: podTemplates,
  ReplicationController: replicationControllers,
  ResourceQuota: resourceQuotas,
  Secret: secrets,
  ServiceAccount: serviceAccounts,
  Service: services,
};

export { namespaceFinalize, namespaceNameLabel } from './namespace.js';

/** Behaviour that differs by the served version writing the kind (keyed by `<group base>/<version>/<Kind>`). */
export const servedVariants: Record<string, KindSpec> = { 'events/v1/Event': eventsV1 };
