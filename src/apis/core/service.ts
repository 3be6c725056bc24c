// Services: DNS-1035 names, type/affinity/port defaults, port validation and the
// `kubectl get services` columns. Cluster IP and node port allocation belong to the
// services Store (registry/services); the field rules they share live there.
import { duplicateField, forbiddenField, invalidField, requiredField, type FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import type { KindSpec } from '../strategy.js';
import { serviceProxy } from './connect.js';
import { ageColumn, column, nameColumn, since, wide } from '../table.js';
import { arr, at, child, meta, obj, objs, setDefault, str } from '../util.js';
import { isDNS1123Label, isDNS1123Subdomain, mapSelectorString, oneOf, validateLabels } from '../validation.js';
import { dns1035LabelName } from '../../apimachinery/names.js';
import { isPortNumber, portNameErrors } from './podspec.js';
import { dropTypeDependentFields, normalizeClusterIPsForUpdate, validateClusterIPFields, validateClusterIPsUpdate } from './service-fields.js';

const SERVICE_TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];

function defaults(o: KubeObject): void {
  const spec = child(o, 'spec');
  setDefault(spec, 'type', 'ClusterIP');
  setDefault(spec, 'sessionAffinity', 'None');
  // Affinity settings only mean something with ClientIP affinity.
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP' && typeof at(spec, 'sessionAffinityConfig.clientIP.timeoutSeconds') !== 'number') {
    spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  for (const port of objs(spec.ports)) {
    setDefault(port, 'protocol', 'TCP');
    if (port.targetPort === undefined || port.targetPort === null || port.targetPort === 0 || port.targetPort === '') {
      port.targetPort = port.port;
    }
  }
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') setDefault(spec, 'externalTrafficPolicy', 'Cluster');
  if (spec.type !== 'ExternalName') setDefault(spec, 'internalTrafficPolicy', 'Cluster');
  if (spec.type === 'LoadBalancer') setDefault(spec, 'allocateLoadBalancerNodePorts', true);
}

function validate(o: KubeObject): FieldError[] {
  const spec = obj(o.spec);
  if (!spec) return [requiredField('spec')];
  const errs: FieldError[] = [];
  const type = spec.type;
  errs.push(...oneOf(type, SERVICE_TYPES, 'spec.type', true));
  errs.push(...oneOf(spec.sessionAffinity, ['None', 'ClientIP'], 'spec.sessionAffinity', true));
  const headless = spec.clusterIP === 'None';
  const ports = objs(spec.ports);
  if (ports.length === 0 && !headless && type !== 'ExternalName') errs.push(requiredField('spec.ports'));
  const names = new Set<string>();
  const seen = new Set<string>();
  ports.forEach((p, i) => {
    const path = `spec.ports[${i}]`;
    const name = str(p.name) ?? '';
    if (ports.length > 1 && name === '') errs.push(requiredField(`${path}.name`));
    if (name !== '') {
      for (const m of isDNS1123Label(name)) errs.push(invalidField(`${path}.name`, name, m));
      if (names.has(name)) errs.push(duplicateField(`${path}.name`, name));
      names.add(name);
    }
    if (!isPortNumber(p.port)) errs.push(invalidField(`${path}.port`, p.port ?? 0, 'must be between 1 and 65535, inclusive'));
    errs.push(...oneOf(p.protocol, ['TCP', 'UDP', 'SCTP'], `${path}.protocol`, true));
    const key = `${String(p.port)}/${String(p.protocol)}`;
    if (seen.has(key)) errs.push(duplicateField(`${path}`, { port: p.port, protocol: p.protocol }));
    seen.add(key);
    const target = p.targetPort;
    if (typeof target === 'number' && !isPortNumber(target)) {
      errs.push(invalidField(`${path}.targetPort`, target, 'must be between 1 and 65535, inclusive'));
    } else if (typeof target === 'string') {
      for (const m of portNameErrors(target)) errs.push(invalidField(`${path}.targetPort`, target, m));
    }
    if (p.nodePort !== undefined && p.nodePort !== 0) {
      if (type !== 'NodePort' && type !== 'LoadBalancer') {
        errs.push({ type: 'FieldValueForbidden', field: `${path}.nodePort`, detail: 'Forbidden: may not be used when `type` is \'ClusterIP\'' });
      } else if (!isPortNumber(p.nodePort)) {
        errs.push(invalidField(`${path}.nodePort`, p.nodePort, 'must be between 1 and 65535, inclusive'));
      }
    }
  });
  if (type === 'ExternalName') {
    // The address fields belong to the other types (clusterIPs follows clusterIP on create).
    if (arr(spec.clusterIPs).length > 0) errs.push(forbiddenField('spec.clusterIPs', 'may not be set for ExternalName services'));
    if (arr(spec.ipFamilies).length > 0) errs.push(forbiddenField('spec.ipFamilies', 'may not be set for ExternalName services'));
    if (spec.ipFamilyPolicy !== undefined && spec.ipFamilyPolicy !== null) errs.push(forbiddenField('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
    const ext = str(spec.externalName) ?? '';
    if (ext === '') errs.push(requiredField('spec.externalName'));
    else for (const m of isDNS1123Subdomain(ext.replace(/\.$/, ''))) errs.push(invalidField('spec.externalName', ext, m));
  }
  if (spec.selector !== undefined) errs.push(...validateLabels(spec.selector, 'spec.selector'));
  errs.push(...validateClusterIPFields(spec));
  return errs;
}

function validateUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const spec = obj(o.spec);
  const oldSpec = obj(old.spec);
  if (!spec || !oldSpec) return [];
  // A set cluster IP stays, unless the service turns into an ExternalName one.
  return validateClusterIPsUpdate(spec, oldSpec);
}

/** Load balancer addresses (IP, else hostname), sorted and unique as kubectl lists them. */
function loadBalancerIPs(o: KubeObject): string {
  const addresses = objs(at(o, 'status.loadBalancer.ingress'))
    .map((i) => str(i.ip) || str(i.hostname) || '')
    .filter((s) => s !== '');
  return [...new Set(addresses)].sort().join(',');
}

function serviceExternalIP(o: KubeObject): string {
  const externalIPs = arr(at(o, 'spec.externalIPs')).map(String);
  switch (at(o, 'spec.type')) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerIPs(o);
      if (externalIPs.length > 0) return [...(lb ? lb.split(',') : []), ...externalIPs].join(',');
      return lb || '<pending>';
    }
    case 'ExternalName':
      return str(at(o, 'spec.externalName')) ?? '';
    default:
      return '<unknown>';
  }
}

function servicePorts(o: KubeObject): string {
  const ports = objs(at(o, 'spec.ports')).map((p) => {
    const proto = str(p.protocol) ?? '';
    const nodePort = typeof p.nodePort === 'number' && p.nodePort > 0 ? `:${p.nodePort}` : '';
    return `${String(p.port)}${nodePort}/${proto}`;
  });
  return ports.length > 0 ? ports.join(',') : '<none>';
}

export const services: KindSpec = {
  // Kubernetes' store for this kind answers a completed delete with the object.
  returnDeletedObject: true,
  subresources: { proxy: serviceProxy },
  validateName: dns1035LabelName,
  allowCreateOnUpdate: true,
  defaults,
  prepareForCreate(o) {
    o.status = { loadBalancer: {} };
    // A client that sets only the singular field means the list of one.
    const spec = obj(o.spec);
    if (spec && typeof spec.clusterIP === 'string' && spec.clusterIP !== '' && arr(spec.clusterIPs).length === 0) spec.clusterIPs = [spec.clusterIP];
  },
  prepareForUpdate(o, old) {
    const spec = obj(o.spec);
    const oldSpec = obj(old.spec);
    if (!spec || !oldSpec) return;
    normalizeClusterIPsForUpdate(spec, oldSpec);
    dropTypeDependentFields(spec, oldSpec);
  },
  validate,
  validateUpdate,
  table: {
    columns: [
      nameColumn,
      column('Type', 'string', 'type determines how the Service is exposed.'),
      column('Cluster-IP', 'string', 'clusterIP is the IP address of the service and is usually assigned randomly.'),
      column('External-IP', 'string', 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.'),
      column('Port(s)', 'string', 'The list of ports that are exposed by this service.'),
      ageColumn,
      wide('Selector', 'string', 'Route service traffic to pods with label keys and values matching this selector.'),
    ],
    cells(o, now) {
      const selector = mapSelectorString(at(o, 'spec.selector'));
      return [
        meta(o).name ?? '',
        str(at(o, 'spec.type')) ?? '',
        str(at(o, 'spec.clusterIP')) || '<none>',
        serviceExternalIP(o),
        servicePorts(o),
        since(meta(o).creationTimestamp, now),
        selector || '<none>',
      ];
    },
  },
};
