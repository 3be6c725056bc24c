// What workload kinds (ReplicationController, the apps kinds, Jobs) share: template and
// selector checks, Scale access, and the Containers / Images / Selector columns.
import { invalidField, requiredField, type FieldError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import type { ScaleAccess } from '../rest/index.js';
import { at, child, num, obj, objs, str } from './util.js';
import { selectorIsEmpty, selectorMatches, selectorString, validateLabelSelector } from './validation.js';
import { setOwn } from '../apimachinery/own.js';

function templateLabels(o: KubeObject, templatePath = 'spec.template'): Record<string, string> {
  const labels = obj(at(o, `${templatePath}.metadata.labels`)) ?? {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) if (typeof v === 'string') setOwn(out, k, v);
  return out;
}

/** A required, non-empty metav1.LabelSelector that selects the template's labels. */
export function validateSelectorAndTemplate(o: KubeObject, templatePath: string, what: string): FieldError[] {
  const selector = at(o, 'spec.selector');
  if (selector === undefined || selector === null) return [requiredField('spec.selector')];
  const errs = validateLabelSelector(selector, 'spec.selector');
  if (selectorIsEmpty(selector)) errs.push(invalidField('spec.selector', selector, `empty selector is invalid for ${what}`));
  else if (errs.length === 0 && !selectorMatches(selector, templateLabels(o, templatePath))) {
    errs.push(invalidField(`${templatePath}.metadata.labels`, templateLabels(o, templatePath), '`selector` does not match template `labels`'));
  }
  return errs;
}

/** Scale access for kinds whose selector is a metav1.LabelSelector. */
export const labelSelectorScale: ScaleAccess = {
  specReplicas: (o) => num(at(o, 'spec.replicas')) ?? 0,
  setSpecReplicas: (o, replicas) => {
    child(o, 'spec').replicas = replicas;
  },
  statusReplicas: (o) => num(at(o, 'status.replicas')) ?? 0,
  selector: (o) => selectorString(at(o, 'spec.selector')),
};

function containers(o: KubeObject, podSpecPath: string): Record<string, unknown>[] {
  return objs(at(o, `${podSpecPath}.containers`));
}

export function containerNames(o: KubeObject, podSpecPath = 'spec.template.spec'): string {
  return containers(o, podSpecPath).map((c) => str(c.name) ?? '').join(',');
}

export function containerImages(o: KubeObject, podSpecPath = 'spec.template.spec'): string {
  return containers(o, podSpecPath).map((c) => str(c.image) ?? '').join(',');
}

/** A LabelSelector printed as kubectl does: empty both when unset and when it selects everything. */
export function selectorColumn(selector: unknown): string {
  return selectorString(selector);
}
