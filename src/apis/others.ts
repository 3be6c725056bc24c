// The remaining groups' kinds: mostly the generic base with Kubernetes' create-on-update
// and unconditional-update choices, their defaults, and the columns users see.
import { requiredField, type FieldError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import type { KindSpec } from './strategy.js';
import { ageColumn, column, nameColumn, since } from './table.js';
import { arr, at, child, meta, num, obj, objs, setDefault, str } from './util.js';
import { oneOf, pathSegmentName, selectorString } from './validation.js';
import { certificateSigningRequests } from './certificates/index.js';

const text = (v: unknown, empty = '<none>'): string => (v === undefined || v === null || v === '' ? empty : String(v));

// ---------------------------------------------------------------------------------------
// policy

const podDisruptionBudgets: KindSpec = {
  table: {
    columns: [
      nameColumn,
      column('Min Available', 'string', 'The minimum number of pods that must be available simultaneously.'),
      column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable simultaneously.'),
      column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
      ageColumn,
    ],
    cells: (o, now) => [
      meta(o).name ?? '',
      text(at(o, 'spec.minAvailable'), 'N/A'),
      text(at(o, 'spec.maxUnavailable'), 'N/A'),
      num(at(o, 'status.disruptionsAllowed')) ?? 0,
      since(meta(o).creationTimestamp, now),
    ],
  },
  prepareForCreate(o) {
    o.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
  },
  validate(o) {
    const spec = obj(o.spec) ?? {};
    if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
      return [{ type: 'FieldValueInvalid', field: 'spec', detail: `Invalid value: ${JSON.stringify(spec)}: minAvailable and maxUnavailable cannot be both set` }];
    }
    return [];
  },
};

// ---------------------------------------------------------------------------------------
// networking

function ingressHosts(o: KubeObject): string {
  const hosts = objs(at(o, 'spec.rules')).map((r) => str(r.host) ?? '').filter((h) => h !== '');
  if (hosts.length === 0) return '*';
  const max = 4;
  return hosts.length > max ? `${hosts.slice(0, max).join(',')} + ${hosts.length - max} more...` : hosts.join(',');
}

function ingressAddress(o: KubeObject): string {
  return objs(at(o, 'status.loadBalancer.ingress'))
    .map((i) => str(i.ip) || str(i.hostname) || '')
    .filter((s) => s !== '')
    .join(',');
}

const ingresses: KindSpec = {
  prepareForCreate(o) {
    o.status = { loadBalancer: {} };
  },
  validate(o) {
    const errs: FieldError[] = [];
    objs(at(o, 'spec.rules')).forEach((r, i) =>
      objs(at(r, 'http.paths')).forEach((p, j) => {
        const path = `spec.rules[${i}].http.paths[${j}]`;
        errs.push(...oneOf(p.pathType, ['Exact', 'Prefix', 'ImplementationSpecific'], `${path}.pathType`, true));
        if (!obj(p.backend)) errs.push(requiredField(`${path}.backend`));
      }),
    );
    if (objs(at(o, 'spec.rules')).length === 0 && !obj(at(o, 'spec.defaultBackend'))) {
      errs.push({ type: 'FieldValueInvalid', field: 'spec', detail: 'Invalid value: {}: either `defaultBackend` or `rules` must be specified' });
    }
    return errs;
  },
  table: {
    columns: [
      nameColumn,
      column('Class', 'string', 'The name of the IngressClass resource that should be used for ingress.'),
      column('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
      column('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
      column('Ports', 'string', 'Ports of TLS configurations that open'),
      ageColumn,
    ],
    cells: (o, now) => [
      meta(o).name ?? '',
      str(at(o, 'spec.ingressClassName')) || '<none>',
      ingressHosts(o),
      ingressAddress(o),
      arr(at(o, 'spec.tls')).length > 0 ? '80, 443' : '80',
      since(meta(o).creationTimestamp, now),
    ],
  },
};

const ingressClasses: KindSpec = {
  table: {
    columns: [nameColumn, column('Controller', 'string', 'Controller that is responsible for handling this class'), column('Parameters', 'string', 'A reference to a resource with additional parameters'), ageColumn],
    cells(o, now) {
      const p = obj(at(o, 'spec.parameters'));
      let params = '<none>';
      if (p) {
        const kind = str(p.apiGroup) ? `${String(p.kind)}.${String(p.apiGroup)}` : String(p.kind);
        params = `${kind}/${String(p.name)}`;
      }
      return [meta(o).name ?? '', str(at(o, 'spec.controller')) ?? '', params, since(meta(o).creationTimestamp, now)];
    },
  },
};

const networkPolicies: KindSpec = {
  defaults(o) {
    const spec = child(o, 'spec');
    for (const rule of [...objs(spec.ingress), ...objs(spec.egress)]) for (const p of objs(rule.ports)) setDefault(p, 'protocol', 'TCP');
    if (arr(spec.policyTypes).length === 0) spec.policyTypes = arr(spec.egress).length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  },
  table: {
    columns: [nameColumn, column('Pod-Selector', 'string', 'Selects the pods to which this NetworkPolicy object applies.'), ageColumn],
    cells: (o, now) => [meta(o).name ?? '', selectorString(at(o, 'spec.podSelector')) || '<none>', since(meta(o).creationTimestamp, now)],
  },
};

// ---------------------------------------------------------------------------------------
// coordination, discovery, scheduling, node

const leases: KindSpec = {
  allowCreateOnUpdate: true,
  table: {
    columns: [nameColumn, column('Holder', 'string', 'The holder of the lease'), ageColumn],
    cells: (o, now) => [meta(o).name ?? '', str(at(o, 'spec.holderIdentity')) ?? '', since(meta(o).creationTimestamp, now)],
  },
};

const endpointSlices: KindSpec = {
  defaults(o) {
    for (const p of objs(o.ports)) {
      setDefault(p, 'protocol', 'TCP');
      setDefault(p, 'name', '');
    }
  },
  validate: (o) => oneOf(o.addressType, ['IPv4', 'IPv6', 'FQDN'], 'addressType', true),
  table: {
    columns: [
      nameColumn,
      column('AddressType', 'string', 'addressType specifies the type of address carried by this EndpointSlice.'),
      column('Ports', 'string', 'ports specifies the list of network ports exposed by each endpoint in this slice.'),
      column('Endpoints', 'string', 'endpoints is a list of unique endpoints in this slice.'),
      ageColumn,
    ],
    cells(o, now) {
      const ports = objs(o.ports).map((p) => (p.port === undefined || p.port === null ? '<unset>' : String(p.port)));
      const addresses = objs(o.endpoints).flatMap((e) => arr(e.addresses).map(String));
      const max = 3;
      let eps = addresses.length === 0 ? '<none>' : addresses.slice(0, max).join(',');
      if (addresses.length > max) eps += ` + ${addresses.length - max} more...`;
      return [meta(o).name ?? '', str(o.addressType) ?? '', ports.length > 0 ? ports.join(',') : '<unset>', eps, since(meta(o).creationTimestamp, now)];
    },
  },
};

/** The highest priority a user-defined class may have; higher ones are the system's. */
const HIGHEST_USER_DEFINABLE_PRIORITY = 1000000000;

const priorityClasses: KindSpec = {
  defaults(o) {
    setDefault(o as Record<string, unknown>, 'preemptionPolicy', 'PreemptLowerPriority');
  },
  validate(o) {
    const errs: FieldError[] = [];
    const name = meta(o).name ?? '';
    if (name.startsWith('system-')) {
      errs.push({ type: 'FieldValueInvalid', field: 'metadata.name', detail: `Invalid value: ${JSON.stringify(name)}: priority class names with 'system-' prefix are reserved for system use only` });
    }
    if (typeof o.value !== 'number') errs.push(requiredField('value'));
    else if (o.value > HIGHEST_USER_DEFINABLE_PRIORITY) {
      errs.push({ type: 'FieldValueForbidden', field: 'value', detail: `Forbidden: maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}` });
    }
    errs.push(...oneOf(o.preemptionPolicy, ['PreemptLowerPriority', 'Never'], 'preemptionPolicy'));
    return errs;
  },
  validateUpdate(o, old) {
    return o.value === old.value ? [] : [{ type: 'FieldValueForbidden', field: 'value', detail: 'Forbidden: may not be changed in an update.' }];
  },
  table: {
    columns: [
      nameColumn,
      column('Value', 'integer', 'The value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.'),
      column('Global-Default', 'boolean', 'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class.'),
      ageColumn,
    ],
    cells: (o, now) => [meta(o).name ?? '', num(o.value) ?? 0, o.globalDefault === true, since(meta(o).creationTimestamp, now)],
  },
};

const runtimeClasses: KindSpec = {
  validate: (o) => (str(o.handler) ? [] : [requiredField('handler')]),
  validateUpdate: (o, old) => (o.handler === old.handler ? [] : [{ type: 'FieldValueInvalid', field: 'handler', detail: `Invalid value: ${JSON.stringify(o.handler)}: field is immutable` }]),
  table: {
    columns: [nameColumn, column('Handler', 'string', 'Handler specifies the underlying runtime and configuration that the CRI implementation will use to handle pods of this class.'), ageColumn],
    cells: (o, now) => [meta(o).name ?? '', str(o.handler) ?? '', since(meta(o).creationTimestamp, now)],
  },
};

// ---------------------------------------------------------------------------------------
// storage

const storageClasses: KindSpec = {
  defaults(o) {
    const s = o as Record<string, unknown>;
    setDefault(s, 'reclaimPolicy', 'Delete');
    setDefault(s, 'volumeBindingMode', 'Immediate');
  },
  validate: (o) => (str(o.provisioner) ? [] : [requiredField('provisioner')]),
  table: {
    columns: [
      nameColumn,
      column('Provisioner', 'string', 'Provisioner indicates the type of the provisioner.'),
      column('ReclaimPolicy', 'string', 'Dynamically provisioned PersistentVolumes of this storage class are created with this reclaimPolicy. Defaults to Delete.'),
      column('VolumeBindingMode', 'string', 'VolumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used.'),
      column('AllowVolumeExpansion', 'string', 'AllowVolumeExpansion shows whether the storage class allow volume expand.'),
      ageColumn,
    ],
    cells(o, now) {
      const annotations = meta(o).annotations ?? {};
      const isDefault = Object.entries(annotations).some(([k, v]) => k.endsWith('/is-default-class') && v === 'true');
      return [
        isDefault ? `${meta(o).name ?? ''} (default)` : (meta(o).name ?? ''),
        str(o.provisioner) ?? '',
        str(o.reclaimPolicy) ?? 'Delete',
        str(o.volumeBindingMode) ?? 'Immediate',
        String(o.allowVolumeExpansion === true),
        since(meta(o).creationTimestamp, now),
      ];
    },
  },
};


const csiDriverTable = {
  columns: [
    nameColumn,
    column('AttachRequired', 'boolean', 'attachRequired indicates this CSI volume driver requires an attach operation.'),
    column('PodInfoOnMount', 'boolean', 'podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations.'),
    column('StorageCapacity', 'boolean', 'storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report.'),
    column('TokenRequests', 'string', 'tokenRequests indicates the CSI driver needs pods\' service account tokens it is mounting volume for to do necessary authentication.'),
    column('RequiresRepublish', 'boolean', 'requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume.'),
    column('Modes', 'string', 'volumeLifecycleModes defines what kind of volumes this CSI volume driver supports.'),
    ageColumn,
  ],
  cells(o: KubeObject, now: Date): unknown[] {
    const audiences = objs(at(o, 'spec.tokenRequests')).map((t) => str(t.audience) ?? '');
    const modes = arr(at(o, 'spec.volumeLifecycleModes')).map(String).join(',');
    return [
      meta(o).name ?? '',
      at(o, 'spec.attachRequired') !== false,
      at(o, 'spec.podInfoOnMount') === true,
      at(o, 'spec.storageCapacity') === true,
      audiences.length > 0 ? audiences.join(',') : '<unset>',
      at(o, 'spec.requiresRepublish') === true,
      modes || '<none>',
      since(meta(o).creationTimestamp, now),
    ];
  },
};

const csiDrivers: KindSpec = {
  allowUnconditionalUpdate: false,
  defaults(o) {
    const spec = child(o, 'spec');
    setDefault(spec, 'attachRequired', true);
    setDefault(spec, 'podInfoOnMount', false);
    setDefault(spec, 'storageCapacity', false);
    setDefault(spec, 'fsGroupPolicy', 'ReadWriteOnceWithFSType');
    setDefault(spec, 'requiresRepublish', false);
    setDefault(spec, 'seLinuxMount', false);
    if (arr(spec.volumeLifecycleModes).length === 0) spec.volumeLifecycleModes = ['Persistent'];
  },
  table: csiDriverTable,
};

const csiNodes: KindSpec = {
  allowUnconditionalUpdate: false,
  table: {
    columns: [nameColumn, column('Drivers', 'integer', 'Drivers indicates the number of CSI drivers registered on the node'), ageColumn],
    cells: (o, now) => [meta(o).name ?? '', objs(at(o, 'spec.drivers')).length, since(meta(o).creationTimestamp, now)],
  },
};

const csiStorageCapacities: KindSpec = {
  allowUnconditionalUpdate: false,
  table: {
    columns: [
      nameColumn,
      column('StorageClassName', 'string', 'storageClassName represents the name of the StorageClass that the reported capacity applies to.'),
      column('Capacity', 'string', 'capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.'),
      ageColumn,
    ],
    cells: (o, now) => [meta(o).name ?? '', str(o.storageClassName) ?? '', o.capacity === undefined ? '<unset>' : String(o.capacity), since(meta(o).creationTimestamp, now)],
  },
};

const volumeAttachments: KindSpec = {
  allowUnconditionalUpdate: false,
  prepareForCreate(o) {
    o.status = { attached: false };
  },
  table: {
    columns: [
      nameColumn,
      column('Attacher', 'string', 'Attacher indicates the name of the volume driver that MUST handle this request.'),
      column('PV', 'string', 'Name of the persistent volume to attach.'),
      column('Node', 'string', 'The node that the volume should be attached to.'),
      column('Attached', 'boolean', 'Indicates the volume is successfully attached.'),
      ageColumn,
    ],
    cells: (o, now) => [
      meta(o).name ?? '',
      str(at(o, 'spec.attacher')) ?? '',
      str(at(o, 'spec.source.persistentVolumeName')) ?? '',
      str(at(o, 'spec.nodeName')) ?? '',
      at(o, 'status.attached') === true,
      since(meta(o).creationTimestamp, now),
    ],
  },
};

// ---------------------------------------------------------------------------------------
// admission webhooks, API services

function defaultWebhooks(o: KubeObject, mutating: boolean): void {
  for (const w of objs(o.webhooks)) {
    setDefault(w, 'failurePolicy', 'Fail');
    setDefault(w, 'matchPolicy', 'Equivalent');
    setDefault(w, 'namespaceSelector', {});
    setDefault(w, 'objectSelector', {});
    setDefault(w, 'timeoutSeconds', 10);
    if (mutating) setDefault(w, 'reinvocationPolicy', 'Never');
    for (const r of objs(w.rules)) setDefault(r, 'scope', '*');
    const service = obj(at(w, 'clientConfig.service'));
    if (service) setDefault(service, 'port', 443);
  }
}

const webhookTable = {
  columns: [nameColumn, column('Webhooks', 'integer', 'Webhooks indicates the number of webhooks in this configuration'), ageColumn],
  cells: (o: KubeObject, now: Date) => [meta(o).name ?? '', objs(o.webhooks).length, since(meta(o).creationTimestamp, now)],
};

const mutatingWebhooks: KindSpec = { allowUnconditionalUpdate: false, defaults: (o) => defaultWebhooks(o, true), table: webhookTable };
const validatingWebhooks: KindSpec = { allowUnconditionalUpdate: false, defaults: (o) => defaultWebhooks(o, false), table: webhookTable };

const apiServices: KindSpec = {
  allowUnconditionalUpdate: false,
  name: pathSegmentName,
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

/** The storage version's name, recorded in `status.storedVersions` once it is used. */
function storageVersionOf(o: KubeObject): string | undefined {
  return str(objs(at(o, 'spec.versions')).find((v) => v.storage === true)?.name);
}

function recordStoredVersion(o: KubeObject, previous: unknown): void {
  const stored = arr(previous).map(String);
  const v = storageVersionOf(o);
  if (v && !stored.includes(v)) stored.push(v);
  child(o, 'status').storedVersions = stored;
}

const customResourceDefinitions: KindSpec = {
  allowUnconditionalUpdate: false,
  defaults(o) {
    const spec = child(o, 'spec');
    const names = child(spec, 'names');
    if (typeof names.kind === 'string' && names.kind !== '') {
      setDefault(names, 'singular', names.kind.toLowerCase());
      setDefault(names, 'listKind', `${names.kind}List`);
    }
    setDefault(child(spec, 'conversion'), 'strategy', 'None');
  },
  prepareForCreate(o) {
    o.status = { acceptedNames: { plural: '', kind: '' } };
    recordStoredVersion(o, []);
  },
  prepareForUpdate(o, old) {
    recordStoredVersion(o, at(old, 'status.storedVersions'));
  },
  validate(o) {
    const errs: FieldError[] = [];
    const group = str(at(o, 'spec.group')) ?? '';
    const plural = str(at(o, 'spec.names.plural')) ?? '';
    if (group === '') errs.push(requiredField('spec.group'));
    else if (!group.includes('.')) errs.push({ type: 'FieldValueInvalid', field: 'spec.group', detail: `Invalid value: ${JSON.stringify(group)}: should be a domain with at least one dot` });
    if (plural === '') errs.push(requiredField('spec.names.plural'));
    if (!str(at(o, 'spec.names.kind'))) errs.push(requiredField('spec.names.kind'));
    if (group !== '' && plural !== '' && meta(o).name !== `${plural}.${group}`) {
      errs.push({ type: 'FieldValueInvalid', field: 'metadata.name', detail: `Invalid value: ${JSON.stringify(meta(o).name ?? '')}: must be spec.names.plural+"."+spec.group` });
    }
    errs.push(...oneOf(at(o, 'spec.scope'), ['Cluster', 'Namespaced'], 'spec.scope', true));
    const versions = objs(at(o, 'spec.versions'));
    if (versions.length === 0) errs.push(requiredField('spec.versions', 'must have exactly one version marked as storage version'));
    else if (versions.filter((v) => v.storage === true).length !== 1) {
      errs.push({ type: 'FieldValueInvalid', field: 'spec.versions', detail: `Invalid value: ${JSON.stringify(versions)}: must have exactly one version marked as storage version` });
    }
    return errs;
  },
};

/** Kinds of the remaining groups, keyed by group base then kind. */
export const otherKinds: Record<string, Record<string, KindSpec>> = {
  policy: { PodDisruptionBudget: podDisruptionBudgets },
  networking: { Ingress: ingresses, IngressClass: ingressClasses, NetworkPolicy: networkPolicies },
  coordination: { Lease: leases },
  discovery: { EndpointSlice: endpointSlices },
  scheduling: { PriorityClass: priorityClasses },
  node: { RuntimeClass: runtimeClasses },
  storage: { StorageClass: storageClasses, CSIDriver: csiDrivers, CSINode: csiNodes, CSIStorageCapacity: csiStorageCapacities, VolumeAttachment: volumeAttachments },
  admissionregistration: { MutatingWebhookConfiguration: mutatingWebhooks, ValidatingWebhookConfiguration: validatingWebhooks },
  apiregistration: { APIService: apiServices },
  apiextensions: { CustomResourceDefinition: customResourceDefinitions },
  certificates: { CertificateSigningRequest: certificateSigningRequests },
};
