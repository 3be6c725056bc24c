// The storage group: StorageClasses, the CSI kinds and VolumeAttachments.
import { requiredField } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, nameColumn, since } from '../table.js';
import { arr, at, child, meta, objs, setDefault, str } from '../util.js';

const storageClasses: KindSpec = {
  // Kubernetes' store for this kind answers a completed delete with the object.
  returnDeletedObject: true,
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
        o.allowVolumeExpansion === true,
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
  // Kubernetes' store for this kind answers a completed delete with the object.
  returnDeletedObject: true,
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
  // Kubernetes' store for this kind answers a completed delete with the object.
  returnDeletedObject: true,
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
  // Kubernetes' store for this kind answers a completed delete with the object.
  returnDeletedObject: true,
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

export const storageKinds: Record<string, KindSpec> = {
  StorageClass: storageClasses,
  CSIDriver: csiDrivers,
  CSINode: csiNodes,
  CSIStorageCapacity: csiStorageCapacities,
  VolumeAttachment: volumeAttachments,
};
