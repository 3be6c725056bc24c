// ReplicationControllers and PodTemplates.
import { invalidField, requiredField, type FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, nameColumn, since, wide } from '../table.js';
import { at, child, clone, meta, num, obj, setDefault } from '../util.js';
import { mapSelectorString, nonNegative, validateLabels } from '../validation.js';
import { containerImages, containerNames } from '../workload.js';
import { defaultPodTemplate, validatePodSpec, validatePodTemplate } from './podspec.js';

function rcDefaults(o: KubeObject): void {
  const spec = child(o, 'spec');
  const labels = obj(at(spec, 'template.metadata.labels'));
  // An empty selector (and empty object labels) default to the template's labels.
  if (labels && Object.keys(labels).length > 0) {
    if (!obj(spec.selector) || Object.keys(obj(spec.selector) ?? {}).length === 0) spec.selector = clone(labels);
    const m = (o.metadata ??= {});
    if (!m.labels || Object.keys(m.labels).length === 0) m.labels = clone(labels) as Record<string, string>;
  }
  setDefault(spec, 'replicas', 1);
  setDefault(spec, 'minReadySeconds', 0);
  defaultPodTemplate(spec.template);
}

function rcValidate(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const selector = obj(at(o, 'spec.selector'));
  if (!selector || Object.keys(selector).length === 0) errs.push(requiredField('spec.selector'));
  else errs.push(...validateLabels(selector, 'spec.selector'));
  errs.push(...nonNegative(at(o, 'spec.replicas'), 'spec.replicas'));
  const template = at(o, 'spec.template');
  if (template === undefined || template === null) {
    errs.push(requiredField('spec.template'));
    return errs;
  }
  errs.push(...validatePodTemplate(template, 'spec.template'));
  const labels = obj(at(o, 'spec.template.metadata.labels')) ?? {};
  if (selector && Object.entries(selector).some(([k, v]) => labels[k] !== v)) {
    errs.push(invalidField('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  }
  if (at(o, 'spec.template.spec.restartPolicy') !== 'Always') {
    errs.push({
      type: 'FieldValueNotSupported',
      field: 'spec.template.spec.restartPolicy',
      detail: `Unsupported value: ${JSON.stringify(at(o, 'spec.template.spec.restartPolicy') ?? '')}: supported values: "Always"`,
    });
  }
  return errs;
}

export const replicationControllers: KindSpec = {
  // The core v1 default predates the collector: pods are orphaned unless a policy is given.
  defaultGarbageCollectionPolicy: 'OrphanDependents',
  tracksGeneration: true,
  defaults: rcDefaults,
  prepareForCreate(o) {
    o.status = { replicas: 0 };
  },
  validate: rcValidate,
  fields: { 'status.replicas': (o) => String(num(at(o, 'status.replicas')) ?? 0) },
  scale: {
    specReplicas: (o) => num(at(o, 'spec.replicas')) ?? 0,
    setSpecReplicas: (o, replicas) => {
      child(o, 'spec').replicas = replicas;
    },
    statusReplicas: (o) => num(at(o, 'status.replicas')) ?? 0,
    selector: (o) => mapSelectorString(at(o, 'spec.selector')),
  },
  table: {
    columns: [
      nameColumn,
      column('Desired', 'integer', 'Replicas is the number of desired replicas.'),
      column('Current', 'integer', 'Replicas is the most recently observed number of replicas.'),
      column('Ready', 'integer', 'The number of ready replicas for this replication controller.'),
      ageColumn,
      wide('Containers', 'string', 'Names of each container in the template.'),
      wide('Images', 'string', 'Images referenced by each container in the template.'),
      wide('Selector', 'string', 'Selector is a label query over pods that should match the replicas count.'),
    ],
    cells: (o, now) => [
      meta(o).name ?? '',
      num(at(o, 'spec.replicas')) ?? 0,
      num(at(o, 'status.replicas')) ?? 0,
      num(at(o, 'status.readyReplicas')) ?? 0,
      since(meta(o).creationTimestamp, now),
      containerNames(o),
      containerImages(o),
      mapSelectorString(at(o, 'spec.selector')) || '<none>',
    ],
  },
};

export const podTemplates: KindSpec = {
  defaults(o) {
    defaultPodTemplate(o.template);
  },
  validate(o) {
    const t = obj(o.template);
    if (!t) return [requiredField('template')];
    return [...validateLabels(at(t, 'metadata.labels'), 'template.metadata.labels'), ...validatePodSpec(t.spec, 'template.spec')];
  },
  table: {
    columns: [
      nameColumn,
      column('Containers', 'string', 'Names of each container in the template.'),
      column('Images', 'string', 'Images referenced by each container in the template.'),
      column('Pod Labels', 'string', 'The labels for the pod template.'),
    ],
    cells: (o) => [
      meta(o).name ?? '',
      containerNames(o, 'template.spec'),
      containerImages(o, 'template.spec'),
      mapSelectorString(at(o, 'template.metadata.labels')) || '<none>',
    ],
  },
};
