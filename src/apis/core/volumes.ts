// PersistentVolumes and PersistentVolumeClaims: Pending on create, the claim's spec
// immutability, and their columns.
import { forbiddenField, requiredField, type FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { longDomainKey } from '../../naming/index.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, nameColumn, since, wide } from '../table.js';
import { arr, at, child, clone, meta, obj, setDefault, str } from '../util.js';
import { oneOf } from '../validation.js';
import { deepEqual } from '../../apimachinery/equality.js';

const ACCESS_MODES: Record<string, string> = {
  ReadWriteOnce: 'RWO',
  ReadOnlyMany: 'ROX',
  ReadWriteMany: 'RWX',
  ReadWriteOncePod: 'RWOP',
};

function accessModesString(modes: unknown): string {
  const list = arr(modes).map(String);
  const out: string[] = [];
  for (const [mode, short] of Object.entries(ACCESS_MODES)) if (list.includes(mode) && !out.includes(short)) out.push(short);
  return out.join(',');
}

function validateAccessModes(modes: unknown, path: string): FieldError[] {
  const list = arr(modes);
  if (list.length === 0) return [requiredField(path, 'at least 1 access mode is required')];
  return list.flatMap((m) => oneOf(m, Object.keys(ACCESS_MODES), path));
}

const storageClass = (o: KubeObject): string =>
  str(at(o, 'spec.storageClassName')) ?? meta(o).annotations?.[longDomainKey('storage-class', 'volume.beta')] ?? '';

export const persistentVolumeClaims: KindSpec = {
  defaults(o) {
    const spec = obj(o.spec);
    if (spec) setDefault(spec, 'volumeMode', 'Filesystem');
  },
  prepareForCreate(o) {
    o.status = { phase: 'Pending' };
  },
  validate(o) {
    const errs = validateAccessModes(at(o, 'spec.accessModes'), 'spec.accessModes');
    if (at(o, 'spec.resources.requests.storage') === undefined) errs.push(requiredField('spec.resources[storage]'));
    return errs;
  },
  validateUpdate(o, old) {
    // Bound claims may grow (resources.requests); a binder may fill in volumeName once.
    const masked = clone(obj(o.spec) ?? {});
    const oldSpec = obj(old.spec) ?? {};
    if (at(old, 'status.phase') === 'Bound') child(masked, 'resources').requests = clone(at(oldSpec, 'resources.requests'));
    if (!str(oldSpec.volumeName)) masked.volumeName = oldSpec.volumeName;
    for (const k of Object.keys(masked)) if (masked[k] === undefined) delete masked[k];
    return deepEqual(masked, oldSpec)
      ? []
      : [forbiddenField('spec', 'spec is immutable after creation except resources.requests for bound claims')];
  },
  fields: { name: (o) => meta(o).name ?? '' },
  table: {
    columns: [
      nameColumn,
      column('Status', 'string', 'Phase represents the current phase of PersistentVolumeClaim.'),
      column('Volume', 'string', 'VolumeName is the binding reference to the PersistentVolume backing this claim.'),
      column('Capacity', 'string', 'Represents the actual resources of the underlying volume.'),
      column('Access Modes', 'string', 'AccessModes contains the actual access modes the volume backing the PVC has.'),
      column('StorageClass', 'string', 'Name of the StorageClass required by the claim.'),
      ageColumn,
      wide('VolumeMode', 'string', 'volumeMode defines what type of volume is required by the claim.'),
    ],
    cells(o, now) {
      const phase = meta(o).deletionTimestamp ? 'Terminating' : (str(at(o, 'status.phase')) ?? '');
      const bound = str(at(o, 'spec.volumeName')) ?? '';
      return [
        meta(o).name ?? '',
        phase,
        bound,
        bound ? String(at(o, 'status.capacity.storage') ?? '') : '',
        bound ? accessModesString(at(o, 'status.accessModes')) : '',
        storageClass(o),
        since(meta(o).creationTimestamp, now),
        str(at(o, 'spec.volumeMode')) || '<unset>',
      ];
    },
  },
};

export const persistentVolumes: KindSpec = {
  defaults(o) {
    const spec = obj(o.spec);
    if (!spec) return;
    setDefault(spec, 'persistentVolumeReclaimPolicy', 'Retain');
    setDefault(spec, 'volumeMode', 'Filesystem');
  },
  prepareForCreate(o) {
    o.status = { phase: 'Pending' };
  },
  validate(o) {
    const errs = validateAccessModes(at(o, 'spec.accessModes'), 'spec.accessModes');
    if (at(o, 'spec.capacity.storage') === undefined) errs.push(requiredField('spec.capacity'));
    errs.push(...oneOf(at(o, 'spec.persistentVolumeReclaimPolicy'), ['Recycle', 'Delete', 'Retain'], 'spec.persistentVolumeReclaimPolicy'));
    return errs;
  },
  fields: { name: (o) => meta(o).name ?? '' },
  table: {
    columns: [
      nameColumn,
      column('Capacity', 'string', 'capacity is the description of the persistent volume\'s resources and capacity.'),
      column('Access Modes', 'string', 'accessModes contains all ways the volume can be mounted.'),
      column('Reclaim Policy', 'string', 'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.'),
      column('Status', 'string', 'phase indicates if a volume is available, bound to a claim, or released by a claim.'),
      column('Claim', 'string', 'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.'),
      column('StorageClass', 'string', 'storageClassName is the name of StorageClass to which this persistent volume belongs.'),
      column('Reason', 'string', 'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.'),
      ageColumn,
      wide('VolumeMode', 'string', 'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.'),
    ],
    cells(o, now) {
      const ref = obj(at(o, 'spec.claimRef'));
      const claim = ref ? `${str(ref.namespace) ?? ''}/${str(ref.name) ?? ''}` : '';
      const phase = meta(o).deletionTimestamp ? 'Terminating' : (str(at(o, 'status.phase')) ?? '');
      return [
        meta(o).name ?? '',
        String(at(o, 'spec.capacity.storage') ?? ''),
        accessModesString(at(o, 'spec.accessModes')),
        str(at(o, 'spec.persistentVolumeReclaimPolicy')) ?? '',
        phase,
        claim,
        storageClass(o),
        str(at(o, 'status.reason')) ?? '',
        since(meta(o).creationTimestamp, now),
        str(at(o, 'spec.volumeMode')) || '<unset>',
      ];
    },
  },
};
