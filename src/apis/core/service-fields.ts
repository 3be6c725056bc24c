// A Service's network fields as plain data: reading them from an object, and the checks
// Kubernetes runs on clusterIP / clusterIPs / ipFamilies / ipFamilyPolicy before
// allocating (the same checks are part of the kind's validation).
import type { FieldError } from '../../apimachinery/errors.js';
import { duplicateField, notSupportedField, requiredField } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { INVALID_IP_MESSAGE, familyOf } from './service-ip.js';
import { isPlainObject } from '../../apimachinery/types.js';

interface ServicePort {
  name?: string;
  port?: number;
  protocol?: string;
  nodePort?: number;
  [k: string]: unknown;
}

export interface ServiceSpec {
  type?: string;
  clusterIP?: string;
  clusterIPs?: string[];
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  selector?: Record<string, string>;
  ports?: ServicePort[];
  allocateLoadBalancerNodePorts?: boolean;
  externalTrafficPolicy?: string;
  healthCheckNodePort?: number;
  [k: string]: unknown;
}

export const CLUSTER_IP_NONE = 'None';

/** The spec of a service object, created when missing or not an object. */
export function specOf(svc: KubeObject): ServiceSpec {
  if (!isPlainObject(svc.spec)) svc.spec = {};
  return svc.spec as ServiceSpec;
}

export function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : String(x))) : [];
}

export function portsOf(spec: ServiceSpec): ServicePort[] {
  return Array.isArray(spec.ports) ? spec.ports.filter(isPlainObject) : [];
}

export function nodePortOf(p: ServicePort): number {
  return typeof p.nodePort === 'number' ? p.nodePort : 0;
}

/** Types that get a cluster IP (even `None`). */
export function needsClusterIP(spec: ServiceSpec): boolean {
  const t = spec.type ?? 'ClusterIP';
  return t === 'ClusterIP' || t === 'NodePort' || t === 'LoadBalancer';
}

export function needsNodePort(spec: ServiceSpec): boolean {
  return spec.type === 'NodePort' || spec.type === 'LoadBalancer';
}

/** A LoadBalancer that keeps traffic on the node needs a health check node port. */
export function needsHealthCheckNodePort(spec: ServiceSpec): boolean {
  return spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
}

/** Whether node ports are allocated for ports that ask for none. */
export function allocatesNodePorts(spec: ServiceSpec): boolean {
  if (spec.type === 'NodePort') return true;
  if (spec.type === 'LoadBalancer') return spec.allocateLoadBalancerNodePorts !== false;
  return false;
}

export function isHeadless(spec: ServiceSpec): boolean {
  const ips = strings(spec.clusterIPs);
  return ips.length === 1 && ips[0] === CLUSTER_IP_NONE;
}

/** A list as Go's `%#v` prints a []string: `[]string{"a", "b"}`, nil as `[]string(nil)`. */
export function goStringSlice(v: string[] | undefined, type = 'string'): string {
  if (v === undefined) return `[]${type}(nil)`;
  return `[]${type}{${v.map((s) => JSON.stringify(s)).join(', ')}}`;
}

/** An Invalid field error whose value is rendered by the caller. */
export function invalidRendered(field: string, rendered: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, detail: `Invalid value: ${rendered}: ${detail}` };
}

function quoted(v: unknown): string {
  return v === undefined || v === null ? 'null' : typeof v === 'string' ? JSON.stringify(v) : String(v);
}

/** Kubernetes' ValidateServiceClusterIPsRelatedFields. */
export function validateClusterIPFields(spec: ServiceSpec): FieldError[] {
  if (spec.type === 'ExternalName') return [];
  const errs: FieldError[] = [];
  const clusterIP = typeof spec.clusterIP === 'string' ? spec.clusterIP : '';
  const rawIPs = spec.clusterIPs === undefined || spec.clusterIPs === null ? undefined : strings(spec.clusterIPs);
  const clusterIPs = rawIPs ?? [];
  if (clusterIP !== '') {
    if (clusterIPs.length === 0) errs.push(requiredField('spec.clusterIPs'));
    else if (clusterIPs[0] !== clusterIP) errs.push(invalidRendered('spec.clusterIPs', goStringSlice(rawIPs), 'first value must match `clusterIP`'));
  } else if (clusterIPs.length !== 0) {
    errs.push(invalidRendered('spec.clusterIPs', goStringSlice(rawIPs), 'must be empty when `clusterIP` is not specified'));
  }

  const families = strings(spec.ipFamilies);
  const seen = new Set<string>();
  families.forEach((f, i) => {
    if (f !== 'IPv4' && f !== 'IPv6') errs.push(notSupportedField(`spec.ipFamilies[${i}]`, f, ['IPv4', 'IPv6']));
    if (seen.has(f)) errs.push(duplicateField(`spec.ipFamilies[${i}]`, f));
    seen.add(f);
  });
  const policy = spec.ipFamilyPolicy;
  if (policy !== undefined && policy !== null && policy !== 'SingleStack' && policy !== 'PreferDualStack' && policy !== 'RequireDualStack') {
    errs.push(notSupportedField('spec.ipFamilyPolicy', policy, ['PreferDualStack', 'RequireDualStack', 'SingleStack']));
  }

  let badIPs = false;
  clusterIPs.forEach((ip, i) => {
    if (i === 0 && ip === CLUSTER_IP_NONE) {
      if (clusterIPs.length > 1) {
        badIPs = true;
        errs.push(invalidRendered('spec.clusterIPs', goStringSlice(rawIPs), "'None' must be the first and only value"));
      }
      return;
    }
    if (!familyOf(ip)) {
      badIPs = true;
      errs.push(invalidRendered(`spec.clusterIPs[${i}]`, quoted(ip), INVALID_IP_MESSAGE));
    }
  });
  if (clusterIPs.length > 2) errs.push(invalidRendered('spec.clusterIPs', goStringSlice(rawIPs), 'may only hold up to 2 values'));
  if (badIPs) return errs;
  if (clusterIPs.length > 1 && (clusterIPs.length !== 2 || familyOf(clusterIPs[0] as string) === familyOf(clusterIPs[1] as string))) {
    errs.push(invalidRendered('spec.clusterIPs', goStringSlice(rawIPs), 'may specify no more than one IP for each IP family'));
  }
  if (!isHeadless(spec) && clusterIPs.length > 0 && families.length > 0) {
    clusterIPs.forEach((ip, i) => {
      if (i >= families.length) return;
      const fam = familyOf(ip);
      if (families[i] === 'IPv4' && fam === 'IPv6') {
        errs.push(invalidRendered(`spec.clusterIPs[${i}]`, quoted(ip), `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      }
      if (families[i] === 'IPv6' && fam !== 'IPv6') {
        errs.push(invalidRendered(`spec.clusterIPs[${i}]`, quoted(ip), `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
      }
    });
  }
  return errs;
}

function sameList(a: unknown, b: unknown): boolean {
  const x = strings(a);
  const y = strings(b);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

export function sameClusterIPs(a: ServiceSpec, b: ServiceSpec): boolean {
  return sameList(a.clusterIPs, b.clusterIPs);
}

export function sameIPFamilies(a: ServiceSpec, b: ServiceSpec): boolean {
  return sameList(a.ipFamilies, b.ipFamilies);
}

function sameNodePorts(a: ServiceSpec, b: ServiceSpec): boolean {
  const x = portsOf(a);
  const y = portsOf(b);
  return x.length === y.length && x.every((p, i) => nodePortOf(p) === nodePortOf(y[i] as ServicePort));
}

/**
 * Fields that stop applying when an update changes the type, cleared when the request
 * left them as they were (Kubernetes' dropTypeDependentFields).
 */
export function dropTypeDependentFields(spec: ServiceSpec, old: ServiceSpec): void {
  if (needsClusterIP(old) && !needsClusterIP(spec)) {
    if (sameClusterIPs(old, spec) && (spec.clusterIP ?? '') === (old.clusterIP ?? '')) {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
    if (sameIPFamilies(old, spec)) delete spec.ipFamilies;
    if ((spec.ipFamilyPolicy ?? '') === (old.ipFamilyPolicy ?? '')) delete spec.ipFamilyPolicy;
  }
  if (needsNodePort(old) && !needsNodePort(spec) && sameNodePorts(old, spec)) {
    for (const p of portsOf(spec)) delete p.nodePort;
  }
  if (needsHealthCheckNodePort(old) && !needsHealthCheckNodePort(spec) && (spec.healthCheckNodePort ?? 0) === (old.healthCheckNodePort ?? 0)) {
    delete spec.healthCheckNodePort;
  }
  if (old.type === 'LoadBalancer' && spec.type !== 'LoadBalancer') {
    if (spec.allocateLoadBalancerNodePorts !== undefined && spec.allocateLoadBalancerNodePorts === old.allocateLoadBalancerNodePorts) {
      delete spec.allocateLoadBalancerNodePorts;
    }
  }
  if (needsNodePort(old) && !needsNodePort(spec) && spec.externalTrafficPolicy === old.externalTrafficPolicy) {
    delete spec.externalTrafficPolicy;
  }
}

/** An update may add or drop the secondary cluster IP or family, never change them (Kubernetes' upgrade/downgrade rules). */
export function validateClusterIPsUpdate(spec: ServiceSpec, old: ServiceSpec): FieldError[] {
  if (spec.type === 'ExternalName' || old.type === 'ExternalName') return [];
  const errs: FieldError[] = [];
  const ips = strings(spec.clusterIPs);
  const oldIPs = strings(old.clusterIPs);
  const rendered = goStringSlice(spec.clusterIPs === undefined ? undefined : ips);
  const policy = quoted(spec.ipFamilyPolicy);
  if (!(isHeadless(old) && isHeadless(spec))) {
    if (oldIPs.length === ips.length) {
      oldIPs.forEach((ip, i) => {
        if (ip !== ips[i]) errs.push(invalidRendered(`spec.clusterIPs[${i}]`, rendered, 'may not change once set'));
      });
    } else if (oldIPs.length > ips.length) {
      if (ips.length === 0) errs.push(invalidRendered('spec.clusterIPs[0]', rendered, 'primary clusterIP can not be unset'));
      if (oldIPs.length > 0 && ips.length > 0 && ips[0] !== oldIPs[0]) errs.push(invalidRendered('spec.clusterIPs[0]', rendered, 'may not change once set'));
      if (ips.length === 1 && spec.ipFamilyPolicy !== 'SingleStack') {
        errs.push(invalidRendered('spec.ipFamilyPolicy', policy, "must be set to 'SingleStack' when releasing the secondary clusterIP"));
      }
    } else if (oldIPs.length > 0 && ips[0] !== oldIPs[0]) {
      errs.push(invalidRendered('spec.clusterIPs[0]', rendered, 'may not change once set'));
    }
  }
  if (isHeadless(old) !== isHeadless(spec) || isHeadless(spec)) return errs;
  const fams = strings(spec.ipFamilies);
  const oldFams = strings(old.ipFamilies);
  const famsRendered = goStringSlice(spec.ipFamilies === undefined ? undefined : fams, 'core.IPFamily');
  if (oldFams.length === fams.length) {
    oldFams.forEach((f, i) => {
      if (f !== fams[i]) errs.push(invalidRendered('spec.ipFamilies[0]', famsRendered, 'may not change once set'));
    });
  } else if (oldFams.length > fams.length) {
    if (ips.length === 0) errs.push(invalidRendered('spec.ipFamilies[0]', famsRendered, 'primary ipFamily can not be unset'));
    if (fams.length > 0 && fams[0] !== oldFams[0]) errs.push(invalidRendered('spec.ipFamilies[0]', rendered, 'may not change once set'));
    if (fams.length === 1 && spec.ipFamilyPolicy !== 'SingleStack') {
      errs.push(invalidRendered('spec.ipFamilyPolicy', policy, "must be set to 'SingleStack' when releasing the secondary ipFamily"));
    }
  } else if (oldFams.length > 0 && fams.length > 0 && fams[0] !== oldFams[0]) {
    errs.push(invalidRendered('spec.ipFamilies[0]', rendered, 'may not change once set'));
  }
  return errs;
}

/** Keeps clusterIP and clusterIPs in step on update, as old and new clients send them. */
export function normalizeClusterIPsForUpdate(spec: ServiceSpec, old: ServiceSpec): void {
  const oldIPs = strings(old.clusterIPs);
  if (oldIPs.length > 0 && strings(spec.clusterIPs).length === 0 && (old.clusterIP ?? '') === (spec.clusterIP ?? '')) spec.clusterIPs = oldIPs;
  if ((old.clusterIP ?? '') !== (spec.clusterIP ?? '')) {
    if (old.clusterIP && !spec.clusterIP) {
      if (sameClusterIPs(old, spec)) delete spec.clusterIPs;
    } else if (sameClusterIPs(old, spec) && spec.clusterIP) {
      spec.clusterIPs = [spec.clusterIP];
    }
  }
}
