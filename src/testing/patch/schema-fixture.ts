// A hand-written slice of the built-in types (ids and patch facts as in release 1.27) for
// strategic merge patch tests that do not depend on the generated catalog.

import type { FieldDef, TypeDef, TypeRef } from '../../schema/catalog-types.js';
import { patchSchemaFor, type PatchSchema, type TypeLookup } from '../../patch/strategic-schema.js';

const CORE = 'io.k8s.api.core.v1.';
const APPS = 'io.k8s.api.apps.v1.';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

const str: TypeRef = { scalar: 'string' };
const int: TypeRef = { scalar: 'int32' };
const ref = (id: string): TypeRef => ({ ref: id });
const listOf = (item: TypeRef): TypeRef => ({ list: item });
const mapOf = (value: TypeRef): TypeRef => ({ map: value });

function field(name: string, type: TypeRef, extra: Partial<FieldDef> = {}): FieldDef {
  return { name, type, required: false, omitEmpty: true, ...extra };
}

const merge = (key?: string): Partial<FieldDef> => (key ? { patchStrategy: ['merge'], patchMergeKey: key } : { patchStrategy: ['merge'] });

const defs: TypeDef[] = [
  {
    id: `${APPS}Deployment`,
    kinds: [{ group: 'apps', version: 'v1', kind: 'Deployment' }],
    fields: [field('kind', str), field('apiVersion', str), field('metadata', ref(`${META}ObjectMeta`)), field('spec', ref(`${APPS}DeploymentSpec`))],
  },
  {
    id: `${CORE}Pod`,
    kinds: [{ group: '', version: 'v1', kind: 'Pod' }],
    fields: [field('kind', str), field('apiVersion', str), field('metadata', ref(`${META}ObjectMeta`)), field('spec', ref(`${CORE}PodSpec`))],
  },
  {
    id: `${APPS}ControllerRevision`,
    kinds: [{ group: 'apps', version: 'v1', kind: 'ControllerRevision' }],
    fields: [field('metadata', ref(`${META}ObjectMeta`)), field('data', { scalar: 'raw-extension' }), field('revision', { scalar: 'int64' })],
  },
  {
    id: 'io.k8s.api.policy.v1.PodDisruptionBudget',
    kinds: [{ group: 'policy', version: 'v1', kind: 'PodDisruptionBudget' }],
    fields: [field('metadata', ref(`${META}ObjectMeta`)), field('spec', ref('io.k8s.api.policy.v1.PodDisruptionBudgetSpec'))],
  },
  {
    id: 'io.k8s.api.policy.v1.PodDisruptionBudgetSpec',
    fields: [
      field('minAvailable', { scalar: 'int-or-string' }),
      field('selector', ref(`${META}LabelSelector`), { patchStrategy: ['replace'] }),
    ],
  },
  {
    id: `${META}ObjectMeta`,
    fields: [
      field('name', str),
      field('labels', mapOf(str)),
      field('annotations', mapOf(str)),
      field('finalizers', listOf(str), merge()),
      field('ownerReferences', listOf(ref(`${META}OwnerReference`)), merge('uid')),
    ],
  },
  { id: `${META}OwnerReference`, fields: [field('apiVersion', str), field('kind', str), field('name', str), field('uid', str)] },
  {
    id: `${APPS}DeploymentSpec`,
    fields: [
      field('replicas', int),
      field('selector', ref(`${META}LabelSelector`)),
      field('template', ref(`${CORE}PodTemplateSpec`)),
      field('strategy', ref(`${APPS}DeploymentStrategy`), { patchStrategy: ['retainKeys'] }),
    ],
  },
  { id: `${META}LabelSelector`, fields: [field('matchLabels', mapOf(str))] },
  { id: `${APPS}DeploymentStrategy`, fields: [field('type', str), field('rollingUpdate', ref(`${APPS}RollingUpdateDeployment`))] },
  {
    id: `${APPS}RollingUpdateDeployment`,
    fields: [field('maxUnavailable', { scalar: 'int-or-string' }), field('maxSurge', { scalar: 'int-or-string' })],
  },
  { id: `${CORE}PodTemplateSpec`, fields: [field('metadata', ref(`${META}ObjectMeta`)), field('spec', ref(`${CORE}PodSpec`))] },
  {
    id: `${CORE}PodSpec`,
    fields: [
      field('volumes', listOf(ref(`${CORE}Volume`)), { patchStrategy: ['merge', 'retainKeys'], patchMergeKey: 'name' }),
      field('initContainers', listOf(ref(`${CORE}Container`)), merge('name')),
      field('containers', listOf(ref(`${CORE}Container`)), merge('name')),
      field('nodeSelector', mapOf(str), { mapType: 'atomic' }),
      field('imagePullSecrets', listOf(ref(`${CORE}LocalObjectReference`)), merge('name')),
      field('tolerations', listOf(ref(`${CORE}Toleration`))),
    ],
  },
  {
    id: `${CORE}Container`,
    fields: [
      field('name', str),
      field('image', str),
      field('args', listOf(str)),
      field('ports', listOf(ref(`${CORE}ContainerPort`)), {
        ...merge('containerPort'),
        listType: 'map',
        listMapKeys: ['containerPort', 'protocol'],
      }),
      field('env', listOf(ref(`${CORE}EnvVar`)), merge('name')),
      field('resources', ref(`${CORE}ResourceRequirements`)),
      field('volumeMounts', listOf(ref(`${CORE}VolumeMount`)), merge('mountPath')),
    ],
  },
  {
    id: `${CORE}ContainerPort`,
    fields: [field('name', str), field('hostPort', int), field('containerPort', int), field('protocol', str)],
  },
  { id: `${CORE}EnvVar`, fields: [field('name', str), field('value', str), field('valueFrom', ref(`${CORE}EnvVarSource`))] },
  { id: `${CORE}EnvVarSource`, fields: [field('fieldRef', ref(`${CORE}ObjectFieldSelector`))] },
  { id: `${CORE}ObjectFieldSelector`, fields: [field('apiVersion', str), field('fieldPath', str)] },
  {
    id: `${CORE}ResourceRequirements`,
    fields: [field('limits', mapOf({ scalar: 'quantity' })), field('requests', mapOf({ scalar: 'quantity' }))],
  },
  { id: `${CORE}VolumeMount`, fields: [field('name', str), field('readOnly', { scalar: 'boolean' }), field('mountPath', str)] },
  {
    id: `${CORE}Volume`,
    fields: [field('name', str), field('', ref(`${CORE}VolumeSource`), { inline: true })],
  },
  {
    id: `${CORE}VolumeSource`,
    fields: [
      field('emptyDir', ref(`${CORE}EmptyDirVolumeSource`)),
      field('secret', ref(`${CORE}SecretVolumeSource`)),
      field('configMap', ref(`${CORE}ConfigMapVolumeSource`)),
    ],
  },
  { id: `${CORE}EmptyDirVolumeSource`, fields: [field('medium', str), field('sizeLimit', { scalar: 'quantity' })] },
  { id: `${CORE}SecretVolumeSource`, fields: [field('secretName', str), field('defaultMode', int)] },
  {
    id: `${CORE}ConfigMapVolumeSource`,
    fields: [
      field('', ref(`${CORE}LocalObjectReference`), { inline: true }),
      field('items', listOf(ref(`${CORE}KeyToPath`))),
      field('defaultMode', int),
    ],
  },
  { id: `${CORE}LocalObjectReference`, fields: [field('name', str)] },
  { id: `${CORE}KeyToPath`, fields: [field('key', str), field('path', str)] },
  {
    id: `${CORE}Toleration`,
    fields: [field('key', str), field('operator', str), field('value', str), field('effect', str), field('tolerationSeconds', { scalar: 'int64' })],
  },
];

const byId = new Map(defs.map((d) => [d.id, d]));

export const fixtureLookup: TypeLookup = { lookupType: (id) => byId.get(id) };

export const TYPE = {
  deployment: `${APPS}Deployment`,
  pod: `${CORE}Pod`,
  controllerRevision: `${APPS}ControllerRevision`,
} as const;

export function fixtureSchema(rootType: string): PatchSchema {
  return patchSchemaFor(fixtureLookup, rootType);
}
