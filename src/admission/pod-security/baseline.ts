// The baseline level's checks (Pod Security Standards, policy versions up to v1.27): what a
// pod may not do to the node or its neighbours. Identifiers, allowed values and wording are
// the standard's.
import { isPlainObject } from '../../apimachinery/types.js';
import { longDomainKey } from '../../naming/index.js';
import { goQuote } from '../../schema/crd/go-format.js';
import { mapsAt, stringAt } from '../util.js';
import {
  byteOrder,
  containersOf,
  containersPhrase,
  joinQuote,
  objectAt,
  pluralize,
  podSecurityContext,
  settersPhrase,
  sortedSet,
  type Check,
  type CheckFn,
  type Container,
} from './check.js';

const allowed = (run: CheckFn, minimumMinor = 0): Check['versions'][number] => ({ minimumMinor, run });

// appArmorProfile: the container annotations may keep the runtime's default or name a
// profile loaded on the node, never `unconfined`.
const appArmorPrefix = (): string => longDomainKey('', 'container.apparmor.security.beta');

const appArmorProfile: CheckFn = ({ annotations }) => {
  const prefix = appArmorPrefix();
  const bad: string[] = [];
  for (const [k, v] of Object.entries(annotations)) {
    if (k.startsWith(prefix) && !(v === '' || v === 'runtime/default' || v.startsWith('localhost/'))) bad.push(`${k}=${goQuote(v)}`);
  }
  if (bad.length === 0) return undefined;
  bad.sort(byteOrder);
  return { reason: pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', bad.length), detail: bad.join(', ') };
};

// capabilities_baseline: only the container runtime's default set may be added.
const BASELINE_CAPABILITIES = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);

/** `securityContext.capabilities.<which>` of a container; undefined when capabilities is unset. */
export function capabilities(c: Container, which: 'add' | 'drop'): string[] | undefined {
  const caps = objectAt(c.sc, 'capabilities');
  if (!caps) return undefined;
  const list = caps[which];
  return Array.isArray(list) ? list.map(String) : [];
}

const capabilitiesBaseline: CheckFn = ({ spec }) => {
  const badContainers: string[] = [];
  const badCaps: string[] = [];
  for (const c of containersOf(spec)) {
    const extra = (capabilities(c, 'add') ?? []).filter((cap) => !BASELINE_CAPABILITIES.has(cap));
    if (extra.length > 0) {
      badContainers.push(c.name);
      badCaps.push(...extra);
    }
  }
  if (badContainers.length === 0) return undefined;
  return { reason: 'non-default capabilities', detail: `${containersPhrase(badContainers)} must not include ${joinQuote(sortedSet(badCaps))} in securityContext.capabilities.add` };
};

// hostNamespaces
const hostNamespaces: CheckFn = ({ spec }) => {
  const set = ['hostNetwork', 'hostPID', 'hostIPC'].filter((k) => spec[k] === true).map((k) => `${k}=true`);
  return set.length > 0 ? { reason: 'host namespaces', detail: set.join(', ') } : undefined;
};

// hostPathVolumes
const hostPathVolumes: CheckFn = ({ spec }) => {
  const bad = mapsAt(spec, 'volumes').filter((v) => isPlainObject(v.hostPath)).map((v) => stringAt(v, 'name') ?? '');
  return bad.length > 0 ? { reason: 'hostPath volumes', detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)}` } : undefined;
};

// hostPorts: unset or 0.
const hostPorts: CheckFn = ({ spec }) => {
  const badContainers: string[] = [];
  const ports: string[] = [];
  for (const c of containersOf(spec)) {
    const used = mapsAt(c.raw, 'ports')
      .map((p) => p.hostPort)
      .filter((p) => p !== undefined && p !== null && p !== 0);
    if (used.length > 0) {
      badContainers.push(c.name);
      ports.push(...used.map(String));
    }
  }
  if (badContainers.length === 0) return undefined;
  const distinct = sortedSet(ports);
  return {
    reason: 'hostPort',
    detail: `${containersPhrase(badContainers)} ${pluralize('uses', 'use', badContainers.length)} ${pluralize('hostPort', 'hostPorts', distinct.length)} ${distinct.join(', ')}`,
  };
};

// privileged
const privileged: CheckFn = ({ spec }) => {
  const bad = containersOf(spec)
    .filter((c) => c.sc.privileged === true)
    .map((c) => c.name);
  return bad.length > 0 ? { reason: 'privileged', detail: `${containersPhrase(bad)} must not set securityContext.privileged=true` } : undefined;
};

// procMount: unset or Default (an unmasked /proc exposes the host's).
const procMount: CheckFn = ({ spec }) => {
  const badContainers: string[] = [];
  const types: string[] = [];
  for (const c of containersOf(spec)) {
    const t = c.sc.procMount;
    if (t === undefined || t === null || t === 'Default') continue;
    badContainers.push(c.name);
    types.push(String(t));
  }
  if (badContainers.length === 0) return undefined;
  return { reason: 'procMount', detail: `${containersPhrase(badContainers)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}` };
};

// seLinuxOptions: a container type of the standard set, no user, no role.
const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);

const seLinuxOptions: CheckFn = ({ spec }) => {
  const badTypes: string[] = [];
  let setUser = false;
  let setRole = false;
  const valid = (opts: Record<string, unknown>): boolean => {
    let ok = true;
    const type = stringAt(opts, 'type') ?? '';
    if (!SELINUX_TYPES.has(type)) {
      ok = false;
      badTypes.push(type);
    }
    if ((stringAt(opts, 'user') ?? '') !== '') {
      ok = false;
      setUser = true;
    }
    if ((stringAt(opts, 'role') ?? '') !== '') {
      ok = false;
      setRole = true;
    }
    return ok;
  };
  const podOpts = objectAt(podSecurityContext(spec), 'seLinuxOptions');
  const podBad = podOpts !== undefined && !valid(podOpts);
  const badContainers: string[] = [];
  for (const c of containersOf(spec)) {
    const opts = objectAt(c.sc, 'seLinuxOptions');
    if (opts && !valid(opts)) badContainers.push(c.name);
  }
  const setters = settersPhrase(podBad, badContainers);
  if (!setters) return undefined;
  const data: string[] = [];
  const types = sortedSet(badTypes);
  if (types.length > 0) data.push(`${pluralize('type', 'types', types.length)} ${joinQuote(types)}`);
  if (setUser) data.push('user may not be set');
  if (setRole) data.push('role may not be set');
  return { reason: 'seLinuxOptions', detail: `${setters} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}` };
};

// seccompProfile_baseline: before v1.19 the alpha annotations, from v1.19 the fields; either
// may only name the runtime's default or a profile on the node.
const seccompPodAnnotation = (): string => longDomainKey('pod', 'seccomp.security.alpha');
const seccompContainerAnnotation = (name: string): string => longDomainKey(name, 'container.seccomp.security.alpha');

const seccompBaselineAnnotations: CheckFn = ({ annotations, spec }) => {
  const ok = (v: string): boolean => v === 'runtime/default' || v === 'docker/default' || v.startsWith('localhost/');
  const bad: string[] = [];
  const check = (key: string): void => {
    if (Object.hasOwn(annotations, key) && !ok(annotations[key]!)) bad.push(`${key}=${goQuote(annotations[key]!)}`);
  };
  check(seccompPodAnnotation());
  for (const c of containersOf(spec)) check(seccompContainerAnnotation(c.name));
  if (bad.length === 0) return undefined;
  const distinct = sortedSet(bad);
  return { reason: 'seccompProfile', detail: `forbidden ${pluralize('annotation', 'annotations', distinct.length)} ${distinct.join(', ')}` };
};

/** `securityContext.seccompProfile.type`: undefined when seccompProfile is unset, '' when the type is. */
export function seccompType(sc: Record<string, unknown>): string | undefined {
  const profile = objectAt(sc, 'seccompProfile');
  return profile ? (stringAt(profile, 'type') ?? '') : undefined;
}

export const validSeccomp = (t: string): boolean => t === 'RuntimeDefault' || t === 'Localhost';

const seccompBaselineFields: CheckFn = ({ spec }) => {
  const values: string[] = [];
  const podType = seccompType(podSecurityContext(spec));
  const podBad = podType !== undefined && !validSeccomp(podType);
  if (podBad) values.push(podType);
  const badContainers: string[] = [];
  for (const c of containersOf(spec)) {
    const t = seccompType(c.sc);
    if (t !== undefined && !validSeccomp(t)) {
      badContainers.push(c.name);
      values.push(t);
    }
  }
  const setters = settersPhrase(podBad, badContainers);
  return setters ? { reason: 'seccompProfile', detail: `${setters} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(values))}` } : undefined;
};

// sysctls: only the namespaced, isolated ones; v1.27 adds net.ipv4.ip_local_reserved_ports.
const SAFE_SYSCTLS = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start'];
const sysctlsCheck =
  (allowedNames: ReadonlySet<string>): CheckFn =>
  ({ spec }) => {
    const bad = mapsAt(podSecurityContext(spec), 'sysctls')
      .map((s) => stringAt(s, 'name') ?? '')
      .filter((n) => !allowedNames.has(n));
    return bad.length > 0 ? { reason: 'forbidden sysctls', detail: bad.join(', ') } : undefined;
  };

// windowsHostProcess
const windowsHostProcess: CheckFn = ({ spec }) => {
  const hostProcess = (sc: Record<string, unknown>): boolean => objectAt(sc, 'windowsOptions')?.hostProcess === true;
  const badContainers = containersOf(spec)
    .filter((c) => hostProcess(c.sc))
    .map((c) => c.name);
  const setters = settersPhrase(hostProcess(podSecurityContext(spec)), badContainers);
  return setters ? { reason: 'hostProcess', detail: `${setters} must not set securityContext.windowsOptions.hostProcess=true` } : undefined;
};

export const CAPABILITIES_BASELINE = 'capabilities_baseline';
export const HOST_PATH_VOLUMES = 'hostPathVolumes';
export const SECCOMP_BASELINE = 'seccompProfile_baseline';

export const baselineChecks: readonly Check[] = [
  { id: 'appArmorProfile', level: 'baseline', versions: [allowed(appArmorProfile)] },
  { id: CAPABILITIES_BASELINE, level: 'baseline', versions: [allowed(capabilitiesBaseline)] },
  { id: 'hostNamespaces', level: 'baseline', versions: [allowed(hostNamespaces)] },
  { id: HOST_PATH_VOLUMES, level: 'baseline', versions: [allowed(hostPathVolumes)] },
  { id: 'hostPorts', level: 'baseline', versions: [allowed(hostPorts)] },
  { id: 'privileged', level: 'baseline', versions: [allowed(privileged)] },
  { id: 'procMount', level: 'baseline', versions: [allowed(procMount)] },
  { id: 'seLinuxOptions', level: 'baseline', versions: [allowed(seLinuxOptions)] },
  { id: SECCOMP_BASELINE, level: 'baseline', versions: [allowed(seccompBaselineAnnotations), allowed(seccompBaselineFields, 19)] },
  {
    id: 'sysctls',
    level: 'baseline',
    versions: [allowed(sysctlsCheck(new Set(SAFE_SYSCTLS))), allowed(sysctlsCheck(new Set([...SAFE_SYSCTLS, 'net.ipv4.ip_local_reserved_ports'])), 27)],
  },
  { id: 'windowsHostProcess', level: 'baseline', versions: [allowed(windowsHostProcess)] },
];


