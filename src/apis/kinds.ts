// Which KindSpec and which version conversions each built-in kind has. Groups are keyed
// by their base name (`rbac.authorization`, `apps`, `` for core), the same in both
// flavors; kinds without an entry get the generic base.
import { domain, fromKubernetesGroup } from '../naming/index.js';
import type { VersionConversion } from '../rest/index.js';
import { admissionregistrationKinds } from './admissionregistration/index.js';
import { apiextensionsKinds } from './apiextensions/index.js';
import { apiregistrationKinds } from './apiregistration/index.js';
import { appsKinds } from './apps/index.js';
import { autoscalingConversions, autoscalingKinds } from './autoscaling/index.js';
import { batchKinds } from './batch/index.js';
import { certificatesKinds } from './certificates/index.js';
import { coordinationKinds } from './coordination/index.js';
import { coreKinds, servedVariants } from './core/index.js';
import { discoveryKinds } from './discovery/index.js';
import { eventsConversions } from './events/index.js';
import { flowcontrolConversions, flowcontrolKinds, flowcontrolServedVariants } from './flowcontrol/index.js';
import { networkingKinds } from './networking/index.js';
import { nodeKinds } from './node/index.js';
import { policyKinds } from './policy/index.js';
import { rbacKinds } from './rbac/index.js';
import { schedulingKinds } from './scheduling/index.js';
import { storageKinds } from './storage/index.js';
import type { KindSpec } from './strategy.js';
import type { SurfaceResource } from './surface.js';

const byGroup: Record<string, Record<string, KindSpec>> = {
  '': coreKinds,
  apps: appsKinds,
  autoscaling: autoscalingKinds,
  batch: batchKinds,
  'rbac.authorization': rbacKinds,
  'flowcontrol.apiserver': flowcontrolKinds,
  admissionregistration: admissionregistrationKinds,
  apiextensions: apiextensionsKinds,
  apiregistration: apiregistrationKinds,
  certificates: certificatesKinds,
  coordination: coordinationKinds,
  discovery: discoveryKinds,
  networking: networkingKinds,
  node: nodeKinds,
  policy: policyKinds,
  scheduling: schedulingKinds,
  storage: storageKinds,
};

/** A group's name without the product domain: `rbac.authorization`, `apps`, `` (core). */
function groupBase(upstreamGroup: string): string {
  const served = fromKubernetesGroup(upstreamGroup);
  const suffix = `.${domain()}`;
  return served.endsWith(suffix) ? served.slice(0, -suffix.length) : served;
}

/** The behaviour of a stored kind, by its storage group (upstream name) and kind. */
export function kindSpecFor(upstreamGroup: string, kind: string): KindSpec {
  return byGroup[groupBase(upstreamGroup)]?.[kind] ?? {};
}

/** Conversions keyed by `<group base>/<version>/<Kind>` of the served (non-storage) version. */
const conversions: Record<string, VersionConversion> = {
  ...autoscalingConversions,
  ...eventsConversions,
  ...flowcontrolConversions,
};

export function conversionFor(row: SurfaceResource): VersionConversion | undefined {
  return conversions[`${groupBase(row.group)}/${row.version}/${row.kind}`];
}

/** A behaviour of its own for a served version that shares another version's storage. */
export function servedVariantFor(row: SurfaceResource): KindSpec | undefined {
  const key = `${groupBase(row.group)}/${row.version}/${row.kind}`;
  return servedVariants[key] ?? flowcontrolServedVariants[key];
}
