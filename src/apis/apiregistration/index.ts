// APIServices: the name rule (`<version>.<group>`), the default service port, kube-aggregator's
// validation and messages, the group priorities of the built-in groups, and the columns
// kubectl shows.
import { invalidField, notSupportedField, requiredField, type FieldError } from '../../apimachinery/errors.js';
import { isDNS1035Label, isDNS1123Subdomain } from '../../apimachinery/labels.js';
import { strictPathSegmentName } from '../../apimachinery/names.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { fromKubernetesGroup } from '../../naming/index.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, nameColumn, since } from '../table.js';
import { at, meta, obj, objs, str } from '../util.js';

/** The port an APIService's service is reached on when `spec.service.port` is unset. */
export const DEFAULT_SERVICE_PORT = 443;

/** Decoded length of a base64 `caBundle` (what kube counts in its message). */
function caBundleBytes(value: unknown): number {
  if (typeof value !== 'string' || value === '') return 0;
  return Buffer.from(value, 'base64').length;
}

/** The checks of kube-aggregator's ValidateAPIService beyond generic metadata. */
export function validateAPIService(o: KubeObject): FieldError[] {
  const spec = obj(o.spec) ?? {};
  const group = str(spec.group) ?? '';
  const version = str(spec.version) ?? '';
  const errs: FieldError[] = [];
  const name = meta(o).name;
  const required = `${version}.${group}`;
  if (name !== undefined && strictPathSegmentName(name, false).length === 0 && name !== required) {
    errs.push(invalidField('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(required)}`));
  }
  if (group === '' && version !== 'v1') errs.push(requiredField('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '') for (const msg of isDNS1123Subdomain(group)) errs.push(invalidField('spec.group', group, msg));
  for (const msg of isDNS1035Label(version)) errs.push(invalidField('spec.version', version, msg));
  const gpm = typeof spec.groupPriorityMinimum === 'number' ? spec.groupPriorityMinimum : 0;
  if (gpm <= 0 || gpm > 20000) errs.push(invalidField('spec.groupPriorityMinimum', gpm, 'must be positive and less than 20000'));
  const vp = typeof spec.versionPriority === 'number' ? spec.versionPriority : 0;
  if (vp <= 0 || vp > 1000) errs.push(invalidField('spec.versionPriority', vp, 'must be positive and less than 1000'));
  const insecure = spec.insecureSkipTLSVerify === true;
  const caBytes = caBundleBytes(spec.caBundle);
  const service = obj(spec.service);
  if (!service) {
    if (caBytes > 0) errs.push(invalidField('spec.caBundle', `${caBytes} bytes`, 'local APIServices may not have a caBundle'));
    if (insecure) errs.push(invalidField('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  if (!str(service.namespace)) errs.push(requiredField('spec.service.namespace'));
  if (!str(service.name)) errs.push(requiredField('spec.service.name'));
  const port = service.port;
  if (port !== undefined && (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)) {
    errs.push(invalidField('spec.service.port', port, 'port is not valid: must be between 1 and 65535, inclusive'));
  }
  if (insecure && caBytes > 0) errs.push(invalidField('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  return errs;
}

const CONDITION_STATUSES = ['True', 'False', 'Unknown'];

/** ValidateAPIServiceStatus: every condition's status is one of the three. */
export function validateAPIServiceStatus(o: KubeObject): FieldError[] {
  return objs(at(o, 'status.conditions')).flatMap((c, i) =>
    CONDITION_STATUSES.includes(String(c.status)) ? [] : [notSupportedField(`status.conditions[${i}].status`, c.status, CONDITION_STATUSES)],
  );
}

function defaultAPIService(o: KubeObject): void {
  const service = obj(at(o, 'spec.service'));
  if (service && service.port === undefined) service.port = DEFAULT_SERVICE_PORT;
}

const apiServices: KindSpec = {
  allowUnconditionalUpdate: false,
  validateName: strictPathSegmentName,
  defaults: defaultAPIService,
  validate: (o) => [...validateAPIService(o), ...validateAPIServiceStatus(o)],
  table: {
    columns: [
      nameColumn,
      column('Service', 'string', 'The reference to the service that hosts this API endpoint.'),
      column('Available', 'string', 'Whether this service is available.'),
      ageColumn,
    ],
    cells(o, now) {
      const svc = obj(at(o, 'spec.service'));
      const service = svc ? `${str(svc.namespace) ?? ''}/${str(svc.name) ?? ''}` : 'Local';
      const cond = objs(at(o, 'status.conditions')).find((c) => c.type === 'Available');
      let available = 'Unknown';
      if (cond) available = cond.status === 'True' ? 'True' : `${String(cond.status)} (${str(cond.reason) ?? ''})`;
      return [meta(o).name ?? '', service, available, since(meta(o).creationTimestamp, now)];
    },
  },
};

export const apiregistrationKinds: Record<string, KindSpec> = {
  APIService: apiServices,
};

export interface APIServicePriority {
  /** spec.groupPriorityMinimum: orders groups, highest first. */
  group: number;
  /** spec.versionPriority: orders versions within a group, highest first. */
  version: number;
}

/**
 * kube-apiserver's table of the built-in group-versions' priorities (its aggregator
 * configuration), by upstream group name. The aggregator's own group is listed first.
 */
const BUILTIN_PRIORITIES: [string, string, number, number][] = [
  ['apiregistration.k8s.io', 'v1', 18000, 15],
  ['', 'v1', 18000, 1],
  ['apps', 'v1', 17800, 15],
  ['events.k8s.io', 'v1', 17750, 15],
  ['events.k8s.io', 'v1beta1', 17750, 5],
  ['authentication.k8s.io', 'v1', 17700, 15],
  ['authentication.k8s.io', 'v1beta1', 17700, 9],
  ['authentication.k8s.io', 'v1alpha1', 17700, 1],
  ['authorization.k8s.io', 'v1', 17600, 15],
  ['autoscaling', 'v1', 17500, 15],
  ['autoscaling', 'v2', 17500, 30],
  ['autoscaling', 'v2beta1', 17500, 9],
  ['autoscaling', 'v2beta2', 17500, 1],
  ['batch', 'v1', 17400, 15],
  ['batch', 'v1beta1', 17400, 9],
  ['batch', 'v2alpha1', 17400, 9],
  ['certificates.k8s.io', 'v1', 17300, 15],
  ['certificates.k8s.io', 'v1alpha1', 17300, 1],
  ['networking.k8s.io', 'v1', 17200, 15],
  ['networking.k8s.io', 'v1alpha1', 17200, 1],
  ['policy', 'v1', 17100, 15],
  ['policy', 'v1beta1', 17100, 9],
  ['rbac.authorization.k8s.io', 'v1', 17000, 15],
  ['storage.k8s.io', 'v1', 16800, 15],
  ['storage.k8s.io', 'v1beta1', 16800, 9],
  ['storage.k8s.io', 'v1alpha1', 16800, 1],
  ['apiextensions.k8s.io', 'v1', 16700, 15],
  ['admissionregistration.k8s.io', 'v1', 16700, 15],
  ['admissionregistration.k8s.io', 'v1alpha1', 16700, 9],
  ['scheduling.k8s.io', 'v1', 16600, 15],
  ['coordination.k8s.io', 'v1', 16500, 15],
  ['node.k8s.io', 'v1', 16300, 15],
  ['node.k8s.io', 'v1alpha1', 16300, 1],
  ['node.k8s.io', 'v1beta1', 16300, 9],
  ['discovery.k8s.io', 'v1', 16200, 15],
  ['discovery.k8s.io', 'v1beta1', 16200, 12],
  ['flowcontrol.apiserver.k8s.io', 'v1beta3', 16100, 18],
  ['flowcontrol.apiserver.k8s.io', 'v1beta2', 16100, 15],
  ['flowcontrol.apiserver.k8s.io', 'v1beta1', 16100, 12],
  ['flowcontrol.apiserver.k8s.io', 'v1alpha1', 16100, 9],
  ['internal.apiserver.k8s.io', 'v1alpha1', 16000, 9],
  ['resource.k8s.io', 'v1alpha2', 15900, 9],
];

/** The priorities of a built-in group-version (served name), or undefined when kube lists none. */
export function builtinAPIServicePriority(group: string, version: string): APIServicePriority | undefined {
  for (const [g, v, gp, vp] of BUILTIN_PRIORITIES) if (fromKubernetesGroup(g) === group && v === version) return { group: gp, version: vp };
  return undefined;
}

/** What the CRD registration controller gives a custom resource group-version. */
export const CUSTOM_RESOURCE_PRIORITY: APIServicePriority = { group: 1000, version: 100 };
