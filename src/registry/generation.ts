// Which kinds keep `metadata.generation`. In Kubernetes 1.27 only some strategies set it to
// 1 on create and raise it when the desired state changes (workloads, policies, webhook
// configurations, CRDs and custom resources); every other kind (ConfigMap, Pod, Namespace,
// Service, ...) leaves it to whatever the object already carries.
import { group } from '../naming/index.js';
import { typeIdForKind } from '../schema/index.js';
import type { ResourceDefinition } from '../rest/index.js';

/** Built-in resources with a generation, by group (its base when it carries the domain). */
const PLAIN_GROUPS: Record<string, string[]> = {
  '': ['replicationcontrollers'],
  apps: ['deployments', 'replicasets', 'statefulsets', 'daemonsets'],
  batch: ['jobs', 'cronjobs'],
  policy: ['poddisruptionbudgets'],
};

const DOMAIN_GROUPS: Record<string, string[]> = {
  networking: ['networkpolicies', 'ingresses', 'ingressclasses'],
  admissionregistration: [
    'mutatingwebhookconfigurations',
    'validatingwebhookconfigurations',
    'validatingadmissionpolicies',
    'validatingadmissionpolicybindings',
  ],
  apiextensions: ['customresourcedefinitions'],
  'flowcontrol.apiserver': ['flowschemas', 'prioritylevelconfigurations'],
};

function builtinTracks(storageGroup: string, resource: string): boolean {
  if (PLAIN_GROUPS[storageGroup]?.includes(resource)) return true;
  for (const [base, resources] of Object.entries(DOMAIN_GROUPS)) {
    if (storageGroup === group(base) && resources.includes(resource)) return true;
  }
  return false;
}

/**
 * Whether objects of this resource carry a generation the server maintains. Kinds the
 * schema catalog does not know are custom resources, which always do.
 */
export function tracksGeneration(definition: ResourceDefinition): boolean {
  const storage = definition.storage ?? { group: definition.group, resource: definition.resource, version: definition.version };
  if (builtinTracks(storage.group, storage.resource)) return true;
  return typeIdForKind({ group: storage.group, version: storage.version, kind: definition.kind }) === undefined;
}
