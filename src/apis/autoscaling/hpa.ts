// HorizontalPodAutoscaler: stored as autoscaling/v2, also served as autoscaling/v1. v1
// only knows a CPU utilization target; everything else travels through annotations, so
// a v2 object read and written back through v1 keeps its metrics, behavior and conditions.
import { invalidField, requiredField, type FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { longDomainKey } from '../../naming/index.js';
import type { VersionConversion } from '../../rest/index.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, nameColumn, since } from '../table.js';
import { at, child, clone, meta, num, obj, objs, setDefault, str, type JsonObject } from '../util.js';

const DEFAULT_CPU_UTILIZATION = 80;

function hpaAnnotations(): { metrics: string; currentMetrics: string; behavior: string; conditions: string } {
  const sub = 'autoscaling.alpha';
  return {
    metrics: longDomainKey('metrics', sub),
    currentMetrics: longDomainKey('current-metrics', sub),
    behavior: longDomainKey('behavior', sub),
    conditions: longDomainKey('conditions', sub),
  };
}

function defaultRules(rules: unknown, scaleUp: boolean): JsonObject {
  const r = obj(rules) ? clone(obj(rules) as JsonObject) : {};
  setDefault(r, 'stabilizationWindowSeconds', scaleUp ? 0 : 300);
  setDefault(r, 'selectPolicy', 'Max');
  if (!Array.isArray(r.policies) || r.policies.length === 0) {
    r.policies = scaleUp
      ? [
          { type: 'Pods', value: 4, periodSeconds: 15 },
          { type: 'Percent', value: 100, periodSeconds: 15 },
        ]
      : [{ type: 'Percent', value: 100, periodSeconds: 15 }];
  }
  return r;
}

function defaultsV2(o: KubeObject): void {
  const spec = child(o, 'spec');
  setDefault(spec, 'minReplicas', 1);
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [cpuMetric(DEFAULT_CPU_UTILIZATION)];
  }
  const behavior = obj(spec.behavior);
  if (behavior) {
    behavior.scaleUp = defaultRules(behavior.scaleUp, true);
    behavior.scaleDown = defaultRules(behavior.scaleDown, false);
  }
}

function cpuMetric(utilization: number): JsonObject {
  return { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: utilization } } };
}

function isCPUUtilization(m: JsonObject): boolean {
  return m.type === 'Resource' && at(m, 'resource.name') === 'cpu' && num(at(m, 'resource.target.averageUtilization')) !== undefined;
}

function validate(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const ref = obj(at(o, 'spec.scaleTargetRef'));
  if (!str(ref?.kind)) errs.push(requiredField('spec.scaleTargetRef.kind'));
  if (!str(ref?.name)) errs.push(requiredField('spec.scaleTargetRef.name'));
  const min = at(o, 'spec.minReplicas');
  const max = at(o, 'spec.maxReplicas');
  if (typeof min === 'number' && min < 1) errs.push(invalidField('spec.minReplicas', min, 'must be greater than or equal to 1'));
  if (typeof max !== 'number' || max < 1) errs.push(invalidField('spec.maxReplicas', max ?? 0, 'must be greater than 0'));
  else if (typeof min === 'number' && max < min) errs.push(invalidField('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  objs(at(o, 'spec.metrics')).forEach((m, i) => {
    if (!['Object', 'Pods', 'Resource', 'ContainerResource', 'External'].includes(String(m.type))) {
      errs.push({ type: 'FieldValueNotSupported', field: `spec.metrics[${i}].type`, detail: `Unsupported value: ${JSON.stringify(m.type ?? '')}: supported values: "ContainerResource", "External", "Object", "Pods", "Resource"` });
    }
  });
  return errs;
}

function quantity(v: unknown): string {
  return v === undefined || v === null ? '' : String(v);
}

/** The Targets column: `current/target` per metric, at most two, then `+ N more...`. */
function formatHPAMetrics(o: KubeObject): string {
  const specs = objs(at(o, 'spec.metrics'));
  const statuses = objs(at(o, 'status.currentMetrics'));
  if (specs.length === 0) return '<none>';
  const list = specs.map((spec, i) => {
    const st = statuses[i];
    const source = (key: string): JsonObject | undefined => obj(spec[key]);
    const current = (key: string, field: string): string | undefined => {
      const v = st ? at(st, `${key}.current.${field}`) : undefined;
      return v === undefined ? undefined : quantity(v);
    };
    switch (spec.type) {
      case 'External':
      case 'Object': {
        const key = spec.type === 'External' ? 'external' : 'object';
        const target = obj(source(key)?.target) ?? {};
        if (target.averageValue !== undefined) return `${current(key, 'averageValue') ?? '<unknown>'}/${quantity(target.averageValue)} (avg)`;
        return `${current(key, 'value') ?? '<unknown>'}/${quantity(target.value)}`;
      }
      case 'Pods':
        return `${current('pods', 'averageValue') ?? '<unknown>'}/${quantity(at(spec, 'pods.target.averageValue'))}`;
      case 'Resource':
      case 'ContainerResource': {
        const key = spec.type === 'Resource' ? 'resource' : 'containerResource';
        const target = obj(source(key)?.target) ?? {};
        if (target.averageValue !== undefined) return `${current(key, 'averageValue') ?? '<unknown>'}/${quantity(target.averageValue)}`;
        const cur = st ? num(at(st, `${key}.current.averageUtilization`)) : undefined;
        const tgt = num(target.averageUtilization);
        return `${cur === undefined ? '<unknown>' : `${cur}%`}/${tgt === undefined ? '<auto>' : `${tgt}%`}`;
      }
      default:
        return '<unknown type>';
    }
  });
  const max = 2;
  if (list.length > max) return `${list.slice(0, max).join(', ')} + ${list.length - max} more...`;
  return list.join(', ');
}

/** v1 objects print through their v2 form. */
function asV2(o: KubeObject): KubeObject {
  return at(o, 'spec.targetCPUUtilizationPercentage') !== undefined || o.apiVersion === 'autoscaling/v1' ? hpaV1ToV2(o) : o;
}

export const horizontalPodAutoscalers: KindSpec = {
  defaults: defaultsV2,
  prepareForCreate(o) {
    o.status = { desiredReplicas: 0 };
  },
  validate,
  table: {
    columns: [
      nameColumn,
      column('Reference', 'string', 'reference to scaled resource; horizontal pod autoscaler will learn the current resource consumption and will set the desired number of pods by using its Scale subresource.'),
      column('Targets', 'string', 'metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).'),
      column('MinPods', 'string', 'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.'),
      column('MaxPods', 'integer', 'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up.'),
      column('Replicas', 'integer', 'currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.'),
      ageColumn,
    ],
    cells(raw, now) {
      const o = asV2(raw);
      const min = num(at(o, 'spec.minReplicas'));
      return [
        meta(o).name ?? '',
        `${str(at(o, 'spec.scaleTargetRef.kind')) ?? ''}/${str(at(o, 'spec.scaleTargetRef.name')) ?? ''}`,
        formatHPAMetrics(o),
        min === undefined ? '<unset>' : min,
        num(at(o, 'spec.maxReplicas')) ?? 0,
        num(at(o, 'status.currentReplicas')) ?? 0,
        since(meta(o).creationTimestamp, now),
      ];
    },
  },
};

// ----------------------------------------------------------------------------------------
// Conversion between autoscaling/v1 (served) and autoscaling/v2 (stored)

function takeJSONAnnotation(annotations: Record<string, string>, key: string): unknown {
  const raw = annotations[key];
  if (raw === undefined) return undefined;
  delete annotations[key];
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

export function hpaV1ToV2(v1: KubeObject): KubeObject {
  const out = clone(v1);
  out.apiVersion = 'autoscaling/v2';
  const m = (out.metadata ??= {});
  const annotations: Record<string, string> = { ...(m.annotations ?? {}) };
  const a = hpaAnnotations();

  const spec = clone(obj(v1.spec) ?? {});
  const target = num(spec.targetCPUUtilizationPercentage);
  delete spec.targetCPUUtilizationPercentage;
  const other = objs(takeJSONAnnotation(annotations, a.metrics));
  const metrics = [...other];
  if (target !== undefined) metrics.push(cpuMetric(target));
  if (metrics.length > 0) spec.metrics = metrics;
  const behavior = takeJSONAnnotation(annotations, a.behavior);
  if (obj(behavior)) spec.behavior = behavior;
  out.spec = spec;

  const status = clone(obj(v1.status) ?? {});
  const currentCPU = num(status.currentCPUUtilizationPercentage);
  delete status.currentCPUUtilizationPercentage;
  const currentMetrics = objs(takeJSONAnnotation(annotations, a.currentMetrics));
  if (currentCPU !== undefined && !currentMetrics.some((c) => c.type === 'Resource' && at(c, 'resource.name') === 'cpu')) {
    currentMetrics.push({ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: currentCPU } } });
  }
  if (currentMetrics.length > 0) status.currentMetrics = currentMetrics;
  const conditions = takeJSONAnnotation(annotations, a.conditions);
  if (Array.isArray(conditions)) status.conditions = conditions;
  if (obj(v1.status) || Object.keys(status).length > 0) out.status = status;

  if (Object.keys(annotations).length > 0) m.annotations = annotations;
  else delete m.annotations;
  return out;
}

export function hpaV2ToV1(v2: KubeObject): KubeObject {
  const out = clone(v2);
  out.apiVersion = 'autoscaling/v1';
  const m = (out.metadata ??= {});
  const annotations: Record<string, string> = { ...(m.annotations ?? {}) };
  const a = hpaAnnotations();

  const spec = clone(obj(v2.spec) ?? {});
  const metrics = objs(spec.metrics);
  const cpu = metrics.find(isCPUUtilization);
  const other = metrics.filter((x) => x !== cpu);
  delete spec.metrics;
  if (cpu) spec.targetCPUUtilizationPercentage = num(at(cpu, 'resource.target.averageUtilization'));
  if (other.length > 0) annotations[a.metrics] = JSON.stringify(other);
  if (spec.behavior !== undefined) {
    annotations[a.behavior] = JSON.stringify(spec.behavior);
    delete spec.behavior;
  }
  out.spec = spec;

  const status = clone(obj(v2.status) ?? {});
  const current = objs(status.currentMetrics);
  delete status.currentMetrics;
  const currentCPU = current.find((c) => c.type === 'Resource' && at(c, 'resource.name') === 'cpu');
  const util = currentCPU ? num(at(currentCPU, 'resource.current.averageUtilization')) : undefined;
  if (util !== undefined) status.currentCPUUtilizationPercentage = util;
  // A CPU entry that v1's field carries whole needs no copy in the annotation.
  const cpuOnlyUtilization = currentCPU !== undefined && util !== undefined && Object.keys(obj(at(currentCPU, 'resource.current')) ?? {}).length === 1;
  const otherCurrent = current.filter((c) => !(cpuOnlyUtilization && c === currentCPU));
  if (otherCurrent.length > 0) annotations[a.currentMetrics] = JSON.stringify(otherCurrent);
  if (Array.isArray(status.conditions) && status.conditions.length > 0) annotations[a.conditions] = JSON.stringify(status.conditions);
  delete status.conditions;
  if (obj(v2.status)) {
    status.currentReplicas ??= 0;
    status.desiredReplicas ??= 0;
    out.status = status;
  }
  if (Object.keys(annotations).length > 0) m.annotations = annotations;
  else delete m.annotations;
  return out;
}

export const hpaV1Conversion: VersionConversion = { toStorage: hpaV1ToV2, fromStorage: hpaV2ToV1 };
