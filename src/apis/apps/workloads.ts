// apps/v1 workloads: Deployment, ReplicaSet, StatefulSet, DaemonSet. Defaults as apps/v1
// applies them, selector/template rules, immutable selectors, Scale, and their columns.
import { forbiddenField, invalidField, notSupportedField, type FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { defaultPodTemplate, validatePodTemplate } from '../core/podspec.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, nameColumn, since, wide } from '../table.js';
import { at, child, clone, meta, num, obj, objs, setDefault, type JsonObject } from '../util.js';
import { immutable, mapSelectorString, nonNegative, oneOf } from '../validation.js';
import {
  containerImages,
  containerNames,
  labelSelectorScale,
  selectorColumn,
  validateSelectorAndTemplate,
} from '../workload.js';
import { deepEqual } from '../../apimachinery/equality.js';

function validateTemplateRestartAlways(o: KubeObject): FieldError[] {
  const policy = at(o, 'spec.template.spec.restartPolicy');
  return policy === 'Always' || policy === undefined ? [] : [notSupportedField('spec.template.spec.restartPolicy', policy, ['Always'])];
}

/** What every apps/v1 workload checks: selector, template, replicas, restart policy, history limit. */
function validateWorkload(o: KubeObject, what: string, replicas = true): FieldError[] {
  const errs = validateSelectorAndTemplate(o, 'spec.template', what);
  if (at(o, 'spec.template') !== undefined) errs.push(...validatePodTemplate(at(o, 'spec.template'), 'spec.template'));
  errs.push(...validateTemplateRestartAlways(o));
  if (replicas) errs.push(...nonNegative(at(o, 'spec.replicas'), 'spec.replicas'));
  errs.push(...nonNegative(at(o, 'spec.revisionHistoryLimit'), 'spec.revisionHistoryLimit'));
  errs.push(...nonNegative(at(o, 'spec.minReadySeconds'), 'spec.minReadySeconds'));
  return errs;
}

const selectorImmutable = (o: KubeObject, old: KubeObject): FieldError[] =>
  immutable(at(o, 'spec.selector'), at(old, 'spec.selector'), 'spec.selector');

const workloadColumns = [
  wide('Containers', 'string', 'Names of each container in the template.'),
  wide('Images', 'string', 'Images referenced by each container in the template.'),
];

// ----------------------------------------------------------------------------------------
// Deployment

function isPercent(v: unknown): boolean {
  return typeof v === 'string' && /^[0-9]+%$/.test(v);
}

function intOrPercentIsZero(v: unknown): boolean {
  return v === 0 || v === '0%';
}

export function validateIntOrPercent(v: unknown, path: string): FieldError[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'number') return nonNegative(v, path);
  if (!isPercent(v)) return [invalidField(path, v, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")];
  return Number(String(v).slice(0, -1)) > 100 ? [invalidField(path, v, 'must not be greater than 100%')] : [];
}

function validateDeployment(o: KubeObject): FieldError[] {
  const errs = validateWorkload(o, 'deployment');
  const strategy = obj(at(o, 'spec.strategy')) ?? {};
  errs.push(...oneOf(strategy.type, ['Recreate', 'RollingUpdate'], 'spec.strategy.type', true));
  if (strategy.type === 'Recreate' && strategy.rollingUpdate !== undefined && strategy.rollingUpdate !== null) {
    errs.push(forbiddenField('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'"));
  }
  const ru = obj(strategy.rollingUpdate);
  if (ru) {
    errs.push(...validateIntOrPercent(ru.maxUnavailable, 'spec.strategy.rollingUpdate.maxUnavailable'));
    errs.push(...validateIntOrPercent(ru.maxSurge, 'spec.strategy.rollingUpdate.maxSurge'));
    if (intOrPercentIsZero(ru.maxSurge) && intOrPercentIsZero(ru.maxUnavailable)) {
      errs.push(invalidField('spec.strategy.rollingUpdate.maxUnavailable', ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
    }
  }
  const pds = at(o, 'spec.progressDeadlineSeconds');
  if (typeof pds === 'number') {
    errs.push(...nonNegative(pds, 'spec.progressDeadlineSeconds'));
    const mrs = num(at(o, 'spec.minReadySeconds')) ?? 0;
    if (pds <= mrs) errs.push(invalidField('spec.progressDeadlineSeconds', pds, 'must be greater than minReadySeconds'));
  }
  return errs;
}

export const deployments: KindSpec = {
  tracksGeneration: true,
  defaults(o) {
    const spec = child(o, 'spec');
    setDefault(spec, 'replicas', 1);
    const strategy = child(spec, 'strategy');
    setDefault(strategy, 'type', 'RollingUpdate');
    if (strategy.type === 'RollingUpdate') {
      const ru = child(strategy, 'rollingUpdate');
      setDefault(ru, 'maxUnavailable', '25%');
      setDefault(ru, 'maxSurge', '25%');
    }
    setDefault(spec, 'revisionHistoryLimit', 10);
    setDefault(spec, 'progressDeadlineSeconds', 600);
    defaultPodTemplate(spec.template);
  },
  prepareForUpdate(o, old) {
    // Annotations are copied to the ReplicaSets, so their change is a new generation too.
    if (!deepEqual(meta(o).annotations ?? {}, meta(old).annotations ?? {})) {
      (o.metadata ??= {}).generation = (meta(old).generation ?? 0) + 1;
    }
  },
  statusProtectedMeta: ['labels'],
  validate: validateDeployment,
  validateUpdate: selectorImmutable,
  scale: labelSelectorScale,
  table: {
    columns: [
      nameColumn,
      column('Ready', 'string', 'Number of the pod with ready state'),
      column('Up-to-date', 'string', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
      column('Available', 'string', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
      ageColumn,
      ...workloadColumns,
      wide('Selector', 'string', 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.'),
    ],
    cells: (o, now) => [
      meta(o).name ?? '',
      `${num(at(o, 'status.readyReplicas')) ?? 0}/${num(at(o, 'spec.replicas')) ?? 0}`,
      num(at(o, 'status.updatedReplicas')) ?? 0,
      num(at(o, 'status.availableReplicas')) ?? 0,
      since(meta(o).creationTimestamp, now),
      containerNames(o),
      containerImages(o),
      selectorColumn(at(o, 'spec.selector')),
    ],
  },
};

// ----------------------------------------------------------------------------------------
// ReplicaSet

export const replicaSets: KindSpec = {
  tracksGeneration: true,
  defaults(o) {
    const spec = child(o, 'spec');
    setDefault(spec, 'replicas', 1);
    defaultPodTemplate(spec.template);
  },
  prepareForCreate(o) {
    o.status = { replicas: 0 };
  },
  validate: (o) => validateWorkload(o, 'deployment'),
  validateUpdate: selectorImmutable,
  scale: labelSelectorScale,
  fields: { 'status.replicas': (o) => String(num(at(o, 'status.replicas')) ?? 0) },
  table: {
    columns: [
      nameColumn,
      column('Desired', 'integer', 'Replicas is the number of desired replicas.'),
      column('Current', 'integer', 'Replicas is the most recently observed number of replicas.'),
      column('Ready', 'integer', 'The number of ready replicas for this replica set.'),
      ageColumn,
      ...workloadColumns,
      wide('Selector', 'string', 'Selector is a label query over pods that should match the replica count.'),
    ],
    cells: (o, now) => [
      meta(o).name ?? '',
      num(at(o, 'spec.replicas')) ?? 0,
      num(at(o, 'status.replicas')) ?? 0,
      num(at(o, 'status.readyReplicas')) ?? 0,
      since(meta(o).creationTimestamp, now),
      containerNames(o),
      containerImages(o),
      selectorColumn(at(o, 'spec.selector')),
    ],
  },
};

// ----------------------------------------------------------------------------------------
// StatefulSet

const STATEFULSET_MUTABLE = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

function defaultClaimTemplate(claim: JsonObject): void {
  const spec = obj(claim.spec);
  if (spec) setDefault(spec, 'volumeMode', 'Filesystem');
  const status = child(claim, 'status');
  setDefault(status, 'phase', 'Pending');
}

export const statefulSets: KindSpec = {
  tracksGeneration: true,
  defaults(o) {
    const spec = child(o, 'spec');
    setDefault(spec, 'podManagementPolicy', 'OrderedReady');
    const us = child(spec, 'updateStrategy');
    setDefault(us, 'type', 'RollingUpdate');
    if (us.type === 'RollingUpdate') setDefault(child(us, 'rollingUpdate'), 'partition', 0);
    const retention = child(spec, 'persistentVolumeClaimRetentionPolicy');
    setDefault(retention, 'whenDeleted', 'Retain');
    setDefault(retention, 'whenScaled', 'Retain');
    setDefault(spec, 'replicas', 1);
    setDefault(spec, 'revisionHistoryLimit', 10);
    defaultPodTemplate(spec.template);
    for (const claim of objs(spec.volumeClaimTemplates)) defaultClaimTemplate(claim);
  },
  prepareForCreate(o) {
    o.status = { replicas: 0, availableReplicas: 0 };
  },
  validate(o) {
    const errs = validateWorkload(o, 'statefulset');
    errs.push(...oneOf(at(o, 'spec.podManagementPolicy'), ['OrderedReady', 'Parallel'], 'spec.podManagementPolicy', true));
    errs.push(...oneOf(at(o, 'spec.updateStrategy.type'), ['RollingUpdate', 'OnDelete'], 'spec.updateStrategy.type', true));
    return errs;
  },
  validateUpdate(o, old) {
    const now = clone(obj(o.spec) ?? {});
    const before = clone(obj(old.spec) ?? {});
    for (const k of STATEFULSET_MUTABLE) {
      delete now[k];
      delete before[k];
    }
    if (deepEqual(now, before)) return [];
    return [
      forbiddenField(
        'spec',
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      ),
    ];
  },
  scale: labelSelectorScale,
  table: {
    columns: [
      nameColumn,
      column('Ready', 'string', 'Number of the pod with ready state'),
      ageColumn,
      ...workloadColumns,
    ],
    cells: (o, now) => [
      meta(o).name ?? '',
      `${num(at(o, 'status.readyReplicas')) ?? 0}/${num(at(o, 'spec.replicas')) ?? 0}`,
      since(meta(o).creationTimestamp, now),
      containerNames(o),
      containerImages(o),
    ],
  },
};

// ----------------------------------------------------------------------------------------
// DaemonSet

export const daemonSets: KindSpec = {
  tracksGeneration: true,
  defaults(o) {
    const spec = child(o, 'spec');
    const us = child(spec, 'updateStrategy');
    setDefault(us, 'type', 'RollingUpdate');
    if (us.type === 'RollingUpdate') {
      const ru = child(us, 'rollingUpdate');
      setDefault(ru, 'maxUnavailable', 1);
      setDefault(ru, 'maxSurge', 0);
    }
    setDefault(spec, 'revisionHistoryLimit', 10);
    defaultPodTemplate(spec.template);
  },
  prepareForCreate(o) {
    o.status = { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 };
  },
  validate(o) {
    const errs = validateWorkload(o, 'daemonset', false);
    errs.push(...oneOf(at(o, 'spec.updateStrategy.type'), ['RollingUpdate', 'OnDelete'], 'spec.updateStrategy.type', true));
    const ru = obj(at(o, 'spec.updateStrategy.rollingUpdate'));
    if (ru) {
      errs.push(...validateIntOrPercent(ru.maxUnavailable, 'spec.updateStrategy.rollingUpdate.maxUnavailable'));
      errs.push(...validateIntOrPercent(ru.maxSurge, 'spec.updateStrategy.rollingUpdate.maxSurge'));
      if (intOrPercentIsZero(ru.maxSurge ?? 0) && intOrPercentIsZero(ru.maxUnavailable ?? 0)) {
        errs.push(invalidField('spec.updateStrategy.rollingUpdate.maxUnavailable', ru.maxUnavailable ?? 0, 'may not be 0 when `maxSurge` is 0'));
      }
    }
    return errs;
  },
  validateUpdate: selectorImmutable,
  table: {
    columns: [
      nameColumn,
      column('Desired', 'integer', 'The total number of nodes that should be running the daemon pod.'),
      column('Current', 'integer', 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.'),
      column('Ready', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.'),
      column('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod'),
      column('Available', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)'),
      column('Node Selector', 'string', 'NodeSelector is a selector which must be true for the pod to fit on a node.'),
      ageColumn,
      ...workloadColumns,
      wide('Selector', 'string', 'A label query over pods that are managed by the daemon set.'),
    ],
    cells: (o, now) => [
      meta(o).name ?? '',
      num(at(o, 'status.desiredNumberScheduled')) ?? 0,
      num(at(o, 'status.currentNumberScheduled')) ?? 0,
      num(at(o, 'status.numberReady')) ?? 0,
      num(at(o, 'status.updatedNumberScheduled')) ?? 0,
      num(at(o, 'status.numberAvailable')) ?? 0,
      mapSelectorString(at(o, 'spec.template.spec.nodeSelector')) || '<none>',
      since(meta(o).creationTimestamp, now),
      containerNames(o),
      containerImages(o),
      selectorColumn(at(o, 'spec.selector')),
    ],
  },
};

// ----------------------------------------------------------------------------------------
// ControllerRevision

export const controllerRevisions: KindSpec = {
  validate: (o) => nonNegative(o.revision, 'revision'),
  validateUpdate: (o, old) => immutable(o.data, old.data, 'data'),
  table: {
    columns: [
      nameColumn,
      column('Controller', 'string', 'Controller of the object'),
      column('Revision', 'integer', 'Revision indicates the revision of the state represented by Data.'),
      ageColumn,
    ],
    cells(o, now) {
      const ref = (meta(o).ownerReferences ?? []).find((r) => r.controller === true);
      let controller = '<none>';
      if (ref) {
        const slash = ref.apiVersion.lastIndexOf('/');
        const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
        controller = `${(group ? `${ref.kind}.${group}` : ref.kind).toLowerCase()}/${ref.name}`;
      }
      // An int64 revision beyond 2^53 is a bigint, printed exactly.
      const revision = typeof o.revision === 'bigint' ? o.revision : (num(o.revision) ?? 0);
      return [meta(o).name ?? '', controller, revision, since(meta(o).creationTimestamp, now)];
    },
  },
};


