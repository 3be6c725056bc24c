// PodSecurity (simplified): a namespace's `pod-security.<domain>/enforce` label (privileged,
// baseline or restricted) refuses pods that break the level's most important checks, and its
// `warn` label turns the same findings into warnings, its `audit` label into audit
// annotations. Checks are reported in the order of their identifiers, each as
// `<title> (<detail>)`, as the Pod Security Standards word them.
import type { ApiClient } from '../client/types.js';
import { longDomainKey } from '../naming/index.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './types.js';
import { admissionForbidden, getOrUndefined, isResource, mapsAt, specOf, stringAt, stringMapAt, type JsonMap } from './util.js';
import { deepEqual } from '../apimachinery/equality.js';
import { isPlainObject } from '../apimachinery/types.js';

type PodSecurityLevel = 'privileged' | 'baseline' | 'restricted';
const LEVELS: readonly PodSecurityLevel[] = ['privileged', 'baseline', 'restricted'];
const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };

function podSecurityLabel(mode: 'enforce' | 'warn' | 'audit', suffix = ''): string {
  return longDomainKey(`${mode}${suffix}`, 'pod-security');
}

const BASELINE_CAPABILITIES = new Set([
  'AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT',
]);
const RESTRICTED_VOLUME_TYPES = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret']);

const quoted = (names: string[]): string => names.map((n) => `"${n}"`).join(', ');
/** `container "a"` / `containers "a", "b"`. */
const containersPhrase = (names: string[]): string => `${names.length === 1 ? 'container' : 'containers'} ${quoted(names)}`;
const plural = (n: number, one: string, many: string): string => (n === 1 ? one : many);

interface Container {
  name: string;
  sc: JsonMap;
  raw: JsonMap;
}

function containersOf(spec: JsonMap): Container[] {
  return ['initContainers', 'containers', 'ephemeralContainers'].flatMap((k) =>
    mapsAt(spec, k).map((c) => ({ name: stringAt(c, 'name') ?? '', sc: isPlainObject(c.securityContext) ? c.securityContext : {}, raw: c })),
  );
}

function capabilities(sc: JsonMap, which: 'add' | 'drop'): string[] {
  const caps = isPlainObject(sc.capabilities) ? sc.capabilities[which] : undefined;
  return Array.isArray(caps) ? caps.map(String) : [];
}

type Check = { id: string; level: 'baseline' | 'restricted'; run(spec: JsonMap, podSC: JsonMap, containers: Container[]): string | undefined };

const CHECKS: Check[] = [
  {
    id: 'allowPrivilegeEscalation',
    level: 'restricted',
    run: (_s, _p, cs) => {
      const bad = cs.filter((c) => c.sc.allowPrivilegeEscalation !== false).map((c) => c.name);
      return bad.length ? `allowPrivilegeEscalation != false (${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false)` : undefined;
    },
  },
  {
    id: 'capabilities_baseline',
    level: 'baseline',
    run: (_s, _p, cs) => {
      const bad = cs.filter((c) => capabilities(c.sc, 'add').some((cap) => !BASELINE_CAPABILITIES.has(cap)));
      if (!bad.length) return undefined;
      const caps = [...new Set(bad.flatMap((c) => capabilities(c.sc, 'add').filter((cap) => !BASELINE_CAPABILITIES.has(cap))))];
      return `non-default capabilities (${containersPhrase(bad.map((c) => c.name))} must not include ${quoted(caps)} in securityContext.capabilities.add)`;
    },
  },
  {
    id: 'capabilities_restricted',
    level: 'restricted',
    run: (_s, _p, cs) => {
      const noDrop = cs.filter((c) => !capabilities(c.sc, 'drop').includes('ALL')).map((c) => c.name);
      const adds = cs.filter((c) => capabilities(c.sc, 'add').some((cap) => cap !== 'NET_BIND_SERVICE'));
      const parts: string[] = [];
      if (noDrop.length) parts.push(`${containersPhrase(noDrop)} must set securityContext.capabilities.drop=["ALL"]`);
      if (adds.length) {
        const caps = [...new Set(adds.flatMap((c) => capabilities(c.sc, 'add').filter((cap) => cap !== 'NET_BIND_SERVICE')))];
        parts.push(`${containersPhrase(adds.map((c) => c.name))} must not include ${quoted(caps)} in securityContext.capabilities.add`);
      }
      return parts.length ? `unrestricted capabilities (${parts.join('; ')})` : undefined;
    },
  },
  {
    id: 'hostNamespaces',
    level: 'baseline',
    run: (s) => {
      const set = ['hostNetwork', 'hostPID', 'hostIPC'].filter((k) => s[k] === true).map((k) => `${k}=true`);
      return set.length ? `host namespaces (${set.join(', ')})` : undefined;
    },
  },
  {
    id: 'hostPathVolumes',
    level: 'baseline',
    run: (s) => {
      const bad = mapsAt(s, 'volumes').filter((v) => isPlainObject(v.hostPath)).map((v) => stringAt(v, 'name') ?? '');
      return bad.length ? `hostPath volumes (${plural(bad.length, 'volume', 'volumes')} ${quoted(bad)})` : undefined;
    },
  },
  {
    id: 'hostPorts',
    level: 'baseline',
    run: (_s, _p, cs) => {
      const bad = cs.filter((c) => mapsAt(c.raw, 'ports').some((p) => typeof p.hostPort === 'number' && p.hostPort !== 0));
      if (!bad.length) return undefined;
      const ports = [...new Set(bad.flatMap((c) => mapsAt(c.raw, 'ports').map((p) => p.hostPort).filter((p) => typeof p === 'number' && p !== 0)))];
      return `hostPort (${containersPhrase(bad.map((c) => c.name))} ${plural(bad.length, 'uses', 'use')} ${plural(ports.length, 'hostPort', 'hostPorts')} ${ports.join(', ')})`;
    },
  },
  {
    id: 'privileged',
    level: 'baseline',
    run: (_s, _p, cs) => {
      const bad = cs.filter((c) => c.sc.privileged === true).map((c) => c.name);
      return bad.length ? `privileged (${containersPhrase(bad)} must not set securityContext.privileged=true)` : undefined;
    },
  },
  {
    id: 'restrictedVolumes',
    level: 'restricted',
    run: (s) => {
      const bad: { name: string; type: string }[] = [];
      for (const v of mapsAt(s, 'volumes')) {
        const type = Object.keys(v).find((k) => k !== 'name');
        if (type && !RESTRICTED_VOLUME_TYPES.has(type)) bad.push({ name: stringAt(v, 'name') ?? '', type });
      }
      if (!bad.length) return undefined;
      const types = [...new Set(bad.map((b) => b.type))];
      return `restricted volume types (${plural(bad.length, 'volume', 'volumes')} ${quoted(bad.map((b) => b.name))} ${plural(bad.length, 'uses', 'use')} ${plural(types.length, 'restricted volume type', 'restricted volume types')} ${quoted(types)})`;
    },
  },
  {
    id: 'runAsNonRoot',
    level: 'restricted',
    run: (_s, p, cs) => {
      if (p.runAsNonRoot === false) return 'runAsNonRoot != true (pod must not set securityContext.runAsNonRoot=false)';
      const explicitFalse = cs.filter((c) => c.sc.runAsNonRoot === false).map((c) => c.name);
      if (explicitFalse.length) return `runAsNonRoot != true (${containersPhrase(explicitFalse)} must not set securityContext.runAsNonRoot=false)`;
      if (p.runAsNonRoot === true) return undefined;
      const unset = cs.filter((c) => c.sc.runAsNonRoot !== true).map((c) => c.name);
      return unset.length ? `runAsNonRoot != true (pod or ${containersPhrase(unset)} must set securityContext.runAsNonRoot=true)` : undefined;
    },
  },
  {
    id: 'runAsUser',
    level: 'restricted',
    run: (_s, p, cs) => {
      if (p.runAsUser === 0) return 'runAsUser=0 (pod must not set runAsUser=0)';
      const bad = cs.filter((c) => c.sc.runAsUser === 0).map((c) => c.name);
      return bad.length ? `runAsUser=0 (${containersPhrase(bad)} must not set runAsUser=0)` : undefined;
    },
  },
  {
    id: 'seccompProfile_restricted',
    level: 'restricted',
    run: (_s, p, cs) => {
      const type = (sc: JsonMap): string | undefined => (isPlainObject(sc.seccompProfile) ? stringAt(sc.seccompProfile, 'type') : undefined);
      const ok = (t: string | undefined): boolean => t === 'RuntimeDefault' || t === 'Localhost';
      const podType = type(p);
      if (podType !== undefined && !ok(podType)) return `seccompProfile (pod must not set securityContext.seccompProfile.type to "${podType}")`;
      const badSet = cs.filter((c) => type(c.sc) !== undefined && !ok(type(c.sc)));
      if (badSet.length) return `seccompProfile (${containersPhrase(badSet.map((c) => c.name))} must not set securityContext.seccompProfile.type to ${quoted([...new Set(badSet.map((c) => type(c.sc)!))])})`;
      if (podType !== undefined) return undefined;
      const unset = cs.filter((c) => type(c.sc) === undefined).map((c) => c.name);
      return unset.length ? `seccompProfile (pod or ${containersPhrase(unset)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")` : undefined;
    },
  },
];

/** The findings of a pod against a level, in check order; [] when it complies. */
export function evaluatePod(level: PodSecurityLevel, podSpec: JsonMap): string[] {
  if (level === 'privileged') return [];
  const podSC = isPlainObject(podSpec.securityContext) ? podSpec.securityContext : {};
  const containers = containersOf(podSpec);
  const findings: string[] = [];
  for (const check of CHECKS) {
    if (check.level === 'restricted' && level !== 'restricted') continue;
    const finding = check.run(podSpec, podSC, containers);
    if (finding) findings.push(finding);
  }
  return findings;
}

function levelOf(labels: Record<string, string>, mode: 'enforce' | 'warn' | 'audit'): { level: PodSecurityLevel; version: string } | undefined {
  const level = labels[podSecurityLabel(mode)];
  if (!level || !LEVELS.includes(level as PodSecurityLevel)) return undefined;
  return { level: level as PodSecurityLevel, version: labels[podSecurityLabel(mode, '-version')] || 'latest' };
}

export class PodSecurity implements AdmissionPlugin {
  readonly name = 'PodSecurity';
  constructor(private readonly client: ApiClient) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!isResource(attrs, '', 'pods') || !attrs.object || !attrs.namespace) return;
    const ns = await getOrUndefined(this.client, NAMESPACES, '', attrs.namespace);
    const labels = stringMapAt(ns?.metadata as JsonMap | undefined, 'labels');
    const enforce = levelOf(labels, 'enforce');
    const warn = levelOf(labels, 'warn');
    // The `audit` label's findings go to the audit event only.
    const audit = attrs.audit ? levelOf(labels, 'audit') : undefined;
    const spec = specOf(attrs.object) ?? {};
    // Updates that leave the pod spec alone (labels, annotations) are not judged again.
    if (attrs.operation === 'UPDATE' && deepEqual(specOf(attrs.oldObject) ?? {}, spec)) return;
    attrs.audit?.add(longDomainKey('enforce-policy', 'pod-security'), enforce ? `${enforce.level}:${enforce.version}` : 'privileged:latest');
    if (audit) {
      const findings = evaluatePod(audit.level, spec);
      if (findings.length) attrs.audit?.add(longDomainKey('audit-violations', 'pod-security'), `would violate PodSecurity "${audit.level}:${audit.version}": ${findings.join(', ')}`);
    }
    if (!enforce && !warn) return;
    if (warn) {
      const findings = evaluatePod(warn.level, spec);
      if (findings.length) attrs.warnings.push(`would violate PodSecurity "${warn.level}:${warn.version}": ${findings.join(', ')}`);
    }
    if (enforce) {
      const findings = evaluatePod(enforce.level, spec);
      if (findings.length) throw admissionForbidden(attrs, `violates PodSecurity "${enforce.level}:${enforce.version}": ${findings.join(', ')}`);
    }
  }
}
