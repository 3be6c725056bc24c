// Pod specs: their defaults and validation, shared by Pods and every kind with a pod
// template (PodTemplate, ReplicationController, the apps workloads, Jobs, CronJobs).
import { duplicateField, forbiddenField, invalidField, requiredField, type FieldError } from '../../apimachinery/errors.js';
import { isPlainObject } from '../../apimachinery/types.js';
import { notFoundField } from '../fielderrors.js';
import { quantityNanos, QUANTITY_MESSAGE } from '../../schema/quantity.js';
import { arr, child, obj, objs, setDefault, str, type JsonObject } from '../util.js';
import { inclusiveRange, isDNS1123Label, isDNS1123Subdomain, nonNegative, oneOf, validateAnnotations, validateLabels } from '../validation.js';
import { getOwn, setOwn } from '../../apimachinery/own.js';

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const TERMINATION_MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];

/** `Always` for `:latest` or untagged images, `IfNotPresent` otherwise (digests included). */
export function defaultPullPolicy(image: string): string {
  // A missing image is reported by validation; its policy is the tagged default.
  if (image === '' || image.includes('@')) return 'IfNotPresent';
  const lastSlash = image.lastIndexOf('/');
  const nameAndTag = image.slice(lastSlash + 1);
  const colon = nameAndTag.lastIndexOf(':');
  if (colon < 0) return 'Always';
  return nameAndTag.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultProbe(probe: unknown): void {
  const p = obj(probe);
  if (!p) return;
  setDefault(p, 'timeoutSeconds', 1);
  setDefault(p, 'periodSeconds', 10);
  setDefault(p, 'successThreshold', 1);
  setDefault(p, 'failureThreshold', 3);
  const http = obj(p.httpGet);
  if (http) setDefault(http, 'scheme', 'HTTP');
  const grpc = obj(p.grpc);
  if (grpc) setDefault(grpc, 'service', '');
}

/** Container defaults; `pod` adds those v1 applies to Pods only, not to templates. */
function defaultContainer(c: JsonObject, pod: boolean, hostNetwork: boolean): void {
  setDefault(c, 'terminationMessagePath', '/dev/termination-log');
  setDefault(c, 'terminationMessagePolicy', 'File');
  if (c.imagePullPolicy === undefined || c.imagePullPolicy === null || c.imagePullPolicy === '') {
    c.imagePullPolicy = defaultPullPolicy(typeof c.image === 'string' ? c.image : '');
  }
  for (const port of objs(c.ports)) {
    setDefault(port, 'protocol', 'TCP');
    if (pod && hostNetwork && port.hostPort === undefined) port.hostPort = port.containerPort;
  }
  const resources = child(c, 'resources');
  // On Pods, limits without requests mean requests equal to the limits.
  const limits = obj(resources.limits);
  if (pod && limits) {
    const requests = child(resources, 'requests');
    for (const [k, v] of Object.entries(limits)) if (getOwn(requests, k) === undefined) setOwn(requests, k, v);
  }
  for (const env of objs(c.env)) {
    const fieldRef = obj(obj(env.valueFrom)?.fieldRef);
    if (fieldRef) setDefault(fieldRef, 'apiVersion', 'v1');
  }
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
}

const VOLUME_SOURCES_WITH_MODE = ['secret', 'configMap', 'downwardAPI', 'projected'];

function defaultVolume(v: JsonObject): void {
  const sources = Object.keys(v).filter((k) => k !== 'name');
  if (sources.length === 0) v.emptyDir = {};
  for (const key of VOLUME_SOURCES_WITH_MODE) {
    const src = obj(v[key]);
    if (src) setDefault(src, 'defaultMode', 420);
  }
  const hostPath = obj(v.hostPath);
  if (hostPath) setDefault(hostPath, 'type', '');
  const fieldRefs = objs(obj(v.downwardAPI)?.items).map((i) => obj(i.fieldRef));
  for (const f of fieldRefs) if (f) setDefault(f, 'apiVersion', 'v1');
}

/**
 * The v1 defaults of a PodSpec, as the API applies them on every write. A Pod's own spec
 * (`pod`) gets a few more than a template's: service links, requests from limits and host
 * ports on the host network.
 */
export function defaultPodSpec(spec: JsonObject, pod = true): void {
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'schedulerName', 'default-scheduler');
  if (pod) setDefault(spec, 'enableServiceLinks', true);
  // The deprecated alias mirrors the service account name in v1.
  if (typeof spec.serviceAccountName === 'string' && spec.serviceAccountName !== '') {
    setDefault(spec, 'serviceAccount', spec.serviceAccountName);
  } else if (typeof spec.serviceAccount === 'string' && spec.serviceAccount !== '') {
    spec.serviceAccountName = spec.serviceAccount;
  }
  const hostNetwork = spec.hostNetwork === true;
  for (const c of [...objs(spec.containers), ...objs(spec.initContainers), ...objs(spec.ephemeralContainers)]) {
    defaultContainer(c, pod, hostNetwork);
  }
  for (const v of objs(spec.volumes)) defaultVolume(v);
}

/** Defaults of a PodTemplateSpec (`{metadata, spec}`). */
export function defaultPodTemplate(template: unknown): void {
  const t = obj(template);
  if (!t) return;
  const spec = obj(t.spec);
  if (spec) defaultPodSpec(spec, false);
}

function validatePorts(ports: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objs(ports).forEach((p, i) => {
    const pp = `${path}[${i}]`;
    const cp = p.containerPort;
    if (cp === undefined || cp === null) errs.push(requiredField(`${pp}.containerPort`));
    else if (!isPortNumber(cp)) errs.push(invalidField(`${pp}.containerPort`, cp, 'must be between 1 and 65535, inclusive'));
    if (p.hostPort !== undefined && p.hostPort !== 0 && !isPortNumber(p.hostPort)) {
      errs.push(invalidField(`${pp}.hostPort`, p.hostPort, 'must be between 1 and 65535, inclusive'));
    }
    if (p.protocol === undefined || p.protocol === '') errs.push(requiredField(`${pp}.protocol`));
    else errs.push(...oneOf(p.protocol, PROTOCOLS, `${pp}.protocol`));
    const name = str(p.name);
    if (name) {
      for (const m of portNameErrors(name)) errs.push(invalidField(`${pp}.name`, name, m));
      if (names.has(name)) errs.push(duplicateField(`${pp}.name`, name));
      names.add(name);
    }
  });
  return errs;
}

export function isPortNumber(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535;
}

/** IANA service names: at most 15 characters, lower case letters, digits and '-', at least one letter. */
export function portNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) errs.push('must contain at least one letter (a-z)');
  if (name.includes('--')) errs.push('must not contain consecutive hyphens (--)');
  if (name.startsWith('-') || name.endsWith('-')) errs.push('must not begin or end with a hyphen (-)');
  return errs;
}

function validateResources(resources: unknown, path: string): FieldError[] {
  const r = obj(resources);
  if (!r) return [];
  const errs: FieldError[] = [];
  const limits = obj(r.limits) ?? {};
  const requests = obj(r.requests) ?? {};
  for (const [kind, list] of [['limits', limits], ['requests', requests]] as const) {
    for (const [k, v] of Object.entries(list)) {
      const q = quantityNanos(v);
      if (q === undefined) errs.push(invalidField(`${path}.${kind}[${k}]`, v, QUANTITY_MESSAGE));
      else if (q < 0n) errs.push(invalidField(`${path}.${kind}[${k}]`, v, 'must be greater than or equal to 0'));
    }
  }
  for (const [k, v] of Object.entries(requests)) {
    const req = quantityNanos(v);
    const lim = quantityNanos(limits[k]);
    if (req !== undefined && lim !== undefined && req > lim) {
      errs.push(invalidField(`${path}.requests`, v, `must be less than or equal to ${k} limit of ${String(limits[k])}`));
    }
  }
  return errs;
}

/** Unix user and group ids: 0 to 2^31-1 (Kubernetes' IsValidUserID and IsValidGroupID); int64 in the API. */
const MAX_ID = 2 ** 31 - 1;

function validateContainerSecurityContext(sc: unknown, path: string): FieldError[] {
  const c = obj(sc);
  if (!c) return [];
  return [...inclusiveRange(c.runAsUser, 0, MAX_ID, `${path}.runAsUser`), ...inclusiveRange(c.runAsGroup, 0, MAX_ID, `${path}.runAsGroup`)];
}

function validatePodSecurityContext(sc: unknown, path: string): FieldError[] {
  const c = obj(sc);
  if (!c) return [];
  const errs = [
    ...inclusiveRange(c.fsGroup, 0, MAX_ID, `${path}.fsGroup`),
    ...inclusiveRange(c.runAsUser, 0, MAX_ID, `${path}.runAsUser`),
    ...inclusiveRange(c.runAsGroup, 0, MAX_ID, `${path}.runAsGroup`),
  ];
  arr(c.supplementalGroups).forEach((g, i) => errs.push(...inclusiveRange(g, 0, MAX_ID, `${path}.supplementalGroups[${i}]`)));
  return errs;
}

function validateContainers(list: unknown, path: string, volumes: Set<string>, names: Set<string>, required: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (list !== undefined && list !== null && !Array.isArray(list)) return [invalidField(path, list, 'must be a list')];
  const items = arr(list);
  if (required && items.length === 0) return [requiredField(path)];
  items.forEach((raw, i) => {
    const p = `${path}[${i}]`;
    if (!isPlainObject(raw)) {
      errs.push(invalidField(p, raw, 'must be an object'));
      return;
    }
    const name = str(raw.name) ?? '';
    if (name === '') errs.push(requiredField(`${p}.name`));
    else {
      for (const m of isDNS1123Label(name)) errs.push(invalidField(`${p}.name`, name, m));
      if (names.has(name)) errs.push(duplicateField(`${p}.name`, name));
      names.add(name);
    }
    const image = str(raw.image) ?? '';
    if (image === '') errs.push(requiredField(`${p}.image`));
    else if (image.trim() !== image) errs.push(invalidField(`${p}.image`, image, 'must not have leading or trailing whitespace'));
    errs.push(...validatePorts(raw.ports, `${p}.ports`));
    errs.push(...oneOf(raw.imagePullPolicy, PULL_POLICIES, `${p}.imagePullPolicy`, true));
    errs.push(...oneOf(raw.terminationMessagePolicy, TERMINATION_MESSAGE_POLICIES, `${p}.terminationMessagePolicy`, true));
    errs.push(...validateResources(raw.resources, `${p}.resources`));
    errs.push(...validateContainerSecurityContext(raw.securityContext, `${p}.securityContext`));
    const envNames = objs(raw.env);
    envNames.forEach((e, j) => {
      if (!str(e.name)) errs.push(requiredField(`${p}.env[${j}].name`));
    });
    objs(raw.volumeMounts).forEach((m, j) => {
      const mp = `${p}.volumeMounts[${j}]`;
      const vname = str(m.name) ?? '';
      if (vname === '') errs.push(requiredField(`${mp}.name`));
      else if (!volumes.has(vname)) errs.push(notFoundField(`${mp}.name`, vname));
      if (!str(m.mountPath)) errs.push(requiredField(`${mp}.mountPath`));
    });
  });
  return errs;
}

function validateVolumes(list: unknown, path: string): { errs: FieldError[]; names: Set<string> } {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objs(list).forEach((v, i) => {
    const p = `${path}[${i}]`;
    const name = str(v.name) ?? '';
    if (name === '') errs.push(requiredField(`${p}.name`));
    else {
      for (const m of isDNS1123Label(name)) errs.push(invalidField(`${p}.name`, name, m));
      if (names.has(name)) errs.push(duplicateField(`${p}.name`, name));
      names.add(name);
    }
    const sources = Object.keys(v).filter((k) => k !== 'name' && v[k] !== null && v[k] !== undefined);
    if (sources.length === 0) errs.push(requiredField(p, 'must specify a volume type'));
    else if (sources.length > 1) errs.push({ type: 'FieldValueForbidden', field: `${p}.${sources[1]}`, detail: 'Forbidden: may not specify more than 1 volume type' });
  });
  return { errs, names };
}

/**
 * The container fields an ephemeral container may set, in the order of Kubernetes' type;
 * the others (ports, resources, resizePolicy, probes, lifecycle) are for the workload.
 */
const EPHEMERAL_FIELDS: readonly [string, boolean][] = [
  ['name', true],
  ['image', true],
  ['command', true],
  ['args', true],
  ['workingDir', true],
  ['ports', false],
  ['envFrom', true],
  ['env', true],
  ['resources', false],
  ['resizePolicy', false],
  ['volumeMounts', true],
  ['volumeDevices', true],
  ['livenessProbe', false],
  ['readinessProbe', false],
  ['startupProbe', false],
  ['lifecycle', false],
  ['terminationMessagePath', true],
  ['terminationMessagePolicy', true],
  ['imagePullPolicy', true],
  ['securityContext', true],
  ['stdin', true],
  ['stdinOnce', true],
  ['tty', true],
];

/** Whether a container field holds more than Go's zero value (an empty struct is zero, an empty list is not). */
function isSet(value: unknown, struct: boolean): boolean {
  if (value === undefined || value === null) return false;
  if (struct && isPlainObject(value)) return Object.values(value).some((v) => v !== undefined && v !== null);
  return true;
}

/**
 * Ephemeral containers: the container checks, names unique across every container of the
 * pod, a target that is a regular or init container, and none of the workload-only fields.
 */
function validateEphemeralContainers(list: unknown, path: string, volumes: Set<string>, names: Set<string>): FieldError[] {
  const items = arr(list);
  if (items.length === 0) return [];
  const targets = new Set(names);
  const errs = validateContainers(list, path, volumes, names, false);
  items.forEach((raw, i) => {
    if (!isPlainObject(raw)) return;
    const p = `${path}[${i}]`;
    const target = str(raw.targetContainerName) ?? '';
    if (target !== '' && !targets.has(target)) errs.push(notFoundField(`${p}.targetContainerName`, target));
    for (const [field, allowed] of EPHEMERAL_FIELDS) {
      // resources is a struct in Go; the other disallowed fields are lists or pointers.
      if (!allowed && isSet(getOwn(raw, field), field === 'resources')) errs.push(forbiddenField(`${p}.${field}`, 'cannot be set for an Ephemeral Container'));
    }
    objs(raw.volumeMounts).forEach((m, j) => {
      if (str(m.subPath)) errs.push(forbiddenField(`${p}.volumeMounts[${j}].subPath`, 'cannot be set for an Ephemeral Container'));
      if (str(m.subPathExpr)) errs.push(forbiddenField(`${p}.volumeMounts[${j}].subPathExpr`, 'cannot be set for an Ephemeral Container'));
    });
  });
  return errs;
}

/** Essential PodSpec checks; `path` is the spec's own path (`spec`, `spec.template.spec`). */
export function validatePodSpec(spec: unknown, path: string): FieldError[] {
  const s = obj(spec);
  if (!s) return [requiredField(path)];
  const { errs, names: volumes } = validateVolumes(s.volumes, `${path}.volumes`);
  const containerNames = new Set<string>();
  errs.push(...validateContainers(s.containers, `${path}.containers`, volumes, containerNames, true));
  errs.push(...validateContainers(s.initContainers, `${path}.initContainers`, volumes, containerNames, false));
  errs.push(...validateEphemeralContainers(s.ephemeralContainers, `${path}.ephemeralContainers`, volumes, containerNames));
  errs.push(...oneOf(s.restartPolicy, RESTART_POLICIES, `${path}.restartPolicy`, true));
  errs.push(...oneOf(s.dnsPolicy, DNS_POLICIES, `${path}.dnsPolicy`, true));
  errs.push(...nonNegative(s.terminationGracePeriodSeconds, `${path}.terminationGracePeriodSeconds`));
  errs.push(...inclusiveRange(s.activeDeadlineSeconds, 1, 2 ** 31 - 1, `${path}.activeDeadlineSeconds`));
  errs.push(...validatePodSecurityContext(s.securityContext, `${path}.securityContext`));
  for (const key of ['serviceAccountName', 'nodeName'] as const) {
    const v = str(s[key]);
    if (v) for (const m of isDNS1123Subdomain(v)) errs.push(invalidField(`${path}.${key}`, v, m));
  }
  if (s.nodeSelector !== undefined) errs.push(...validateLabels(s.nodeSelector, `${path}.nodeSelector`));
  const hostname = str(s.hostname);
  if (hostname) for (const m of isDNS1123Label(hostname)) errs.push(invalidField(`${path}.hostname`, hostname, m));
  return errs;
}

/** A PodTemplateSpec at `path` (`spec.template`): its labels, annotations and spec. */
export function validatePodTemplate(template: unknown, path: string): FieldError[] {
  const t = obj(template);
  if (!t) return [requiredField(path)];
  const m = obj(t.metadata) ?? {};
  return [
    ...validateLabels(m.labels, `${path}.metadata.labels`),
    ...validateAnnotations(m.annotations, `${path}.metadata.annotations`),
    ...validatePodSpec(t.spec, `${path}.spec`),
  ];
}
