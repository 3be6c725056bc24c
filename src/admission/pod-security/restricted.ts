// The restricted level's own checks (Pod Security Standards, policy versions up to v1.27):
// hardening on top of baseline. `capabilities_restricted`, `restrictedVolumes` and
// `seccompProfile_restricted` replace the baseline check they tighten. From v1.25 a pod
// with `spec.os.name: windows` is exempt from the Linux-only ones.
import { isPlainObject } from '../../apimachinery/types.js';
import { mapsAt, stringAt } from '../util.js';
import { CAPABILITIES_BASELINE, capabilities, HOST_PATH_VOLUMES, SECCOMP_BASELINE, seccompType, validSeccomp } from './baseline.js';
import { containersOf, containersPhrase, isWindowsPod, joinQuote, pluralize, podSecurityContext, settersPhrase, sortedSet, type Check, type CheckFn } from './check.js';

/** From v1.25 the check does not apply to Windows pods. */
const exceptWindows =
  (run: CheckFn): CheckFn =>
  (pod) =>
    isWindowsPod(pod.spec) ? undefined : run(pod);

// allowPrivilegeEscalation: must be set to false.
const allowPrivilegeEscalation: CheckFn = ({ spec }) => {
  const bad = containersOf(spec)
    .filter((c) => c.sc.allowPrivilegeEscalation !== false)
    .map((c) => c.name);
  return bad.length > 0 ? { reason: 'allowPrivilegeEscalation != false', detail: `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false` } : undefined;
};

// capabilities_restricted: drop ALL; add nothing but NET_BIND_SERVICE.
const capabilitiesRestricted: CheckFn = ({ spec }) => {
  const missingDropAll: string[] = [];
  const addingForbidden: string[] = [];
  const forbidden: string[] = [];
  for (const c of containersOf(spec)) {
    const drop = capabilities(c, 'drop');
    if (drop === undefined) {
      missingDropAll.push(c.name);
      continue;
    }
    if (!drop.includes('ALL')) missingDropAll.push(c.name);
    const extra = (capabilities(c, 'add') ?? []).filter((cap) => cap !== 'NET_BIND_SERVICE');
    if (extra.length > 0) {
      addingForbidden.push(c.name);
      forbidden.push(...extra);
    }
  }
  const details: string[] = [];
  if (missingDropAll.length > 0) details.push(`${containersPhrase(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  if (addingForbidden.length > 0) details.push(`${containersPhrase(addingForbidden)} must not include ${joinQuote(sortedSet(forbidden))} in securityContext.capabilities.add`);
  return details.length > 0 ? { reason: 'unrestricted capabilities', detail: details.join('; ') } : undefined;
};

// restrictedVolumes: only the volume types that carry no host or network access.
const ALLOWED_VOLUME_SOURCES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];
/** The forbidden sources, in the order the standard names a volume's type by. */
const NAMED_VOLUME_SOURCES = [
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'nfs', 'iscsi', 'glusterfs', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'fc', 'azureFile',
  'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'portworxVolume', 'scaleIO', 'storageos',
];

const restrictedVolumes: CheckFn = ({ spec }) => {
  const badVolumes: string[] = [];
  const badTypes: string[] = [];
  for (const v of mapsAt(spec, 'volumes')) {
    if (ALLOWED_VOLUME_SOURCES.some((s) => isPlainObject(v[s]))) continue;
    badVolumes.push(stringAt(v, 'name') ?? '');
    badTypes.push(NAMED_VOLUME_SOURCES.find((s) => isPlainObject(v[s])) ?? 'unknown');
  }
  if (badVolumes.length === 0) return undefined;
  const types = sortedSet(badTypes);
  return {
    reason: 'restricted volume types',
    detail: `${pluralize('volume', 'volumes', badVolumes.length)} ${joinQuote(badVolumes)} ${pluralize('uses', 'use', badVolumes.length)} ${pluralize('restricted volume type', 'restricted volume types', types.length)} ${joinQuote(types)}`,
  };
};

// runAsNonRoot: true on the pod or on every container, false nowhere.
const runAsNonRoot: CheckFn = ({ spec }) => {
  const podValue = podSecurityContext(spec).runAsNonRoot;
  const podBad = podValue === false;
  const podTrue = podValue === true;
  const explicitlyBad: string[] = [];
  const implicitlyBad: string[] = [];
  for (const c of containersOf(spec)) {
    const v = c.sc.runAsNonRoot;
    if (v === true || v === false) {
      if (v === false) explicitlyBad.push(c.name);
    } else if (!podTrue) implicitlyBad.push(c.name);
  }
  const setters = settersPhrase(podBad, explicitlyBad);
  if (setters) return { reason: 'runAsNonRoot != true', detail: `${setters} must not set securityContext.runAsNonRoot=false` };
  if (implicitlyBad.length > 0) return { reason: 'runAsNonRoot != true', detail: `pod or ${containersPhrase(implicitlyBad)} must set securityContext.runAsNonRoot=true` };
  return undefined;
};

// runAsUser: never 0.
const runAsUser: CheckFn = ({ spec }) => {
  const bad = containersOf(spec)
    .filter((c) => c.sc.runAsUser === 0)
    .map((c) => c.name);
  const setters = settersPhrase(podSecurityContext(spec).runAsUser === 0, bad);
  return setters ? { reason: 'runAsUser=0', detail: `${setters} must not set runAsUser=0` } : undefined;
};

// seccompProfile_restricted: RuntimeDefault or Localhost, on the pod or on every container.
const seccompProfileRestricted: CheckFn = ({ spec }) => {
  const values: string[] = [];
  const podType = seccompType(podSecurityContext(spec));
  const podBad = podType !== undefined && !validSeccomp(podType);
  if (podBad) values.push(podType);
  const podSet = podType !== undefined && !podBad;
  const explicitlyBad: string[] = [];
  const implicitlyBad: string[] = [];
  for (const c of containersOf(spec)) {
    const t = seccompType(c.sc);
    if (t !== undefined) {
      if (!validSeccomp(t)) {
        explicitlyBad.push(c.name);
        values.push(t);
      }
    } else if (!podSet) implicitlyBad.push(c.name);
  }
  const setters = settersPhrase(podBad, explicitlyBad);
  if (setters) return { reason: 'seccompProfile', detail: `${setters} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(values))}` };
  if (implicitlyBad.length > 0) {
    return { reason: 'seccompProfile', detail: `pod or ${containersPhrase(implicitlyBad)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"` };
  }
  return undefined;
};

export const restrictedChecks: readonly Check[] = [
  {
    id: 'allowPrivilegeEscalation',
    level: 'restricted',
    versions: [
      { minimumMinor: 8, run: allowPrivilegeEscalation },
      { minimumMinor: 25, run: exceptWindows(allowPrivilegeEscalation) },
    ],
  },
  {
    id: 'capabilities_restricted',
    level: 'restricted',
    versions: [
      { minimumMinor: 22, run: capabilitiesRestricted, overrides: [CAPABILITIES_BASELINE] },
      { minimumMinor: 25, run: exceptWindows(capabilitiesRestricted), overrides: [CAPABILITIES_BASELINE] },
    ],
  },
  { id: 'restrictedVolumes', level: 'restricted', versions: [{ minimumMinor: 0, run: restrictedVolumes, overrides: [HOST_PATH_VOLUMES] }] },
  { id: 'runAsNonRoot', level: 'restricted', versions: [{ minimumMinor: 0, run: runAsNonRoot }] },
  { id: 'runAsUser', level: 'restricted', versions: [{ minimumMinor: 23, run: runAsUser }] },
  {
    id: 'seccompProfile_restricted',
    level: 'restricted',
    versions: [
      { minimumMinor: 19, run: seccompProfileRestricted, overrides: [SECCOMP_BASELINE] },
      { minimumMinor: 25, run: exceptWindows(seccompProfileRestricted), overrides: [SECCOMP_BASELINE] },
    ],
  },
];
