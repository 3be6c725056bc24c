// The batch group: Jobs and CronJobs.
import { invalidField, notSupportedField, requiredField, type FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { longDomainKey } from '../../naming/index.js';
import { defaultPodTemplate, validatePodTemplate } from '../core/podspec.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, humanDuration, nameColumn, since, wide } from '../table.js';
import { at, child, meta, num, obj, setDefault, str } from '../util.js';
import { immutable, integerValue, nonNegative, oneOf, validateLabelSelector } from '../validation.js';
import { containerImages, containerNames, selectorColumn, validateSelectorAndTemplate } from '../workload.js';
import { cronScheduleError } from './cron.js';

const JOB_RESTART_POLICIES = ['OnFailure', 'Never'];

/** The labels a generated Job selector uses: the current and the legacy spellings. */
function jobLabels(): { controllerUid: string; jobName: string; legacyControllerUid: string; legacyJobName: string } {
  return {
    controllerUid: longDomainKey('controller-uid', 'batch'),
    jobName: longDomainKey('job-name', 'batch'),
    legacyControllerUid: 'controller-uid',
    legacyJobName: 'job-name',
  };
}

function defaultJobSpec(spec: Record<string, unknown>): void {
  if (spec.completions === undefined && spec.parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  setDefault(spec, 'parallelism', 1);
  setDefault(spec, 'backoffLimit', 6);
  setDefault(spec, 'completionMode', 'NonIndexed');
  setDefault(spec, 'suspend', false);
  defaultPodTemplate(spec.template);
}

/** Without `manualSelector`, the selector is generated from the Job's uid and name. */
function generateSelector(o: KubeObject): void {
  const spec = child(o, 'spec');
  if (spec.manualSelector === true) return;
  const m = meta(o);
  const uid = m.uid ?? '';
  const name = m.name ?? '';
  const l = jobLabels();
  const labels = child(child(child(spec, 'template'), 'metadata'), 'labels');
  for (const key of [l.legacyJobName, l.jobName]) setDefault(labels, key, name);
  for (const key of [l.legacyControllerUid, l.controllerUid]) setDefault(labels, key, uid);
  const matchLabels = child(child(spec, 'selector'), 'matchLabels');
  setDefault(matchLabels, l.controllerUid, uid);
}

function validateJobSpec(spec: unknown, path: string, o: KubeObject, checkSelector: boolean): FieldError[] {
  const s = obj(spec);
  if (!s) return [requiredField(path)];
  const errs: FieldError[] = [];
  for (const f of ['parallelism', 'completions', 'backoffLimit']) errs.push(...nonNegative(s[f], `${path}.${f}`));
  const ads = s.activeDeadlineSeconds;
  if (ads !== undefined && ads !== null && (integerValue(ads) ?? 0n) <= 0n) {
    errs.push(invalidField(`${path}.activeDeadlineSeconds`, ads, 'must be greater than 0'));
  }
  errs.push(...oneOf(s.completionMode, ['NonIndexed', 'Indexed'], `${path}.completionMode`));
  if (s.completionMode === 'Indexed' && (s.completions === undefined || s.completions === null)) {
    errs.push(requiredField(`${path}.completions`, 'when completion mode is Indexed'));
  }
  if (checkSelector) errs.push(...validateSelectorAndTemplate(o, 'spec.template', 'job'));
  else errs.push(...validateLabelSelector(s.selector, `${path}.selector`));
  if (s.template === undefined || s.template === null) {
    errs.push(requiredField(`${path}.template`));
  } else {
    errs.push(...validatePodTemplate(s.template, `${path}.template`));
    const policy = at(s, 'template.spec.restartPolicy');
    if (!JOB_RESTART_POLICIES.includes(String(policy))) {
      errs.push(notSupportedField(`${path}.template.spec.restartPolicy`, policy ?? '', JOB_RESTART_POLICIES));
    }
  }
  return errs;
}

function jobCompletions(o: KubeObject): string {
  const succeeded = num(at(o, 'status.succeeded')) ?? 0;
  const completions = num(at(o, 'spec.completions'));
  if (completions !== undefined) return `${succeeded}/${completions}`;
  const parallelism = num(at(o, 'spec.parallelism')) ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(o: KubeObject, now: Date): string {
  const start = Date.parse(str(at(o, 'status.startTime')) ?? '');
  if (Number.isNaN(start)) return '';
  const end = Date.parse(str(at(o, 'status.completionTime')) ?? '');
  return humanDuration((Number.isNaN(end) ? now.getTime() : end) - start);
}

const jobs: KindSpec = {
  // batch/v1 keeps the pre-collector default: a Job's pods stay unless a policy is given.
  defaultGarbageCollectionPolicy: 'OrphanDependents',
  tracksGeneration: true,
  defaults(o) {
    const spec = child(o, 'spec');
    defaultJobSpec(spec);
    const templateLabels = obj(at(spec, 'template.metadata.labels'));
    const m = (o.metadata ??= {});
    if (templateLabels && (!m.labels || Object.keys(m.labels).length === 0)) {
      m.labels = { ...(templateLabels as Record<string, string>) };
    }
  },
  prepareForCreate: generateSelector,
  validate: (o) => validateJobSpec(o.spec, 'spec', o, true),
  validateUpdate(o, old) {
    const errs = [
      ...immutable(at(o, 'spec.selector'), at(old, 'spec.selector'), 'spec.selector'),
      ...immutable(at(o, 'spec.completionMode'), at(old, 'spec.completionMode'), 'spec.completionMode'),
    ];
    // The template may change only while the Job is suspended and has not started.
    const suspendedNotStarted = at(old, 'spec.suspend') === true && at(old, 'status.startTime') === undefined;
    if (!suspendedNotStarted) errs.push(...immutable(at(o, 'spec.template'), at(old, 'spec.template'), 'spec.template'));
    if (at(o, 'spec.completionMode') !== 'Indexed') {
      errs.push(...immutable(at(o, 'spec.completions'), at(old, 'spec.completions'), 'spec.completions'));
    }
    return errs;
  },
  fields: { 'status.successful': (o) => String(num(at(o, 'status.succeeded')) ?? 0) },
  table: {
    columns: [
      nameColumn,
      column('Completions', 'string', 'The desired number of successfully finished pods the job should be run with.'),
      column('Duration', 'string', 'Time required to complete the job.'),
      ageColumn,
      wide('Containers', 'string', 'Names of each container in the template.'),
      wide('Images', 'string', 'Images referenced by each container in the template.'),
      wide('Selector', 'string', 'A label query over pods that should match the pod count.'),
    ],
    cells: (o, now) => [
      meta(o).name ?? '',
      jobCompletions(o),
      jobDuration(o, now),
      since(meta(o).creationTimestamp, now),
      containerNames(o),
      containerImages(o),
      selectorColumn(at(o, 'spec.selector')),
    ],
  },
};

/** Cron job names leave room for the Job name suffix the controller appends. */
const CRONJOB_NAME_MAX = 52;

function validateCronJob(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = meta(o).name ?? '';
  if (name.length > CRONJOB_NAME_MAX) errs.push(invalidField('metadata.name', name, `must be no more than ${CRONJOB_NAME_MAX} characters`));
  const spec = obj(o.spec);
  if (!spec) return [...errs, requiredField('spec')];
  const schedule = str(spec.schedule) ?? '';
  if (schedule === '') errs.push(requiredField('spec.schedule'));
  else if (/(^|\s)(CRON_)?TZ=/.test(schedule)) {
    errs.push(invalidField('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  } else {
    const err = cronScheduleError(schedule);
    if (err) errs.push(invalidField('spec.schedule', schedule, err));
  }
  const tz = spec.timeZone;
  if (tz !== undefined && tz !== null) {
    if (typeof tz !== 'string' || tz === '' || !isKnownTimeZone(tz)) errs.push(invalidField('spec.timeZone', tz, 'unknown time zone ' + String(tz)));
  }
  errs.push(...oneOf(spec.concurrencyPolicy, ['Allow', 'Forbid', 'Replace'], 'spec.concurrencyPolicy', true));
  errs.push(...nonNegative(spec.startingDeadlineSeconds, 'spec.startingDeadlineSeconds'));
  errs.push(...nonNegative(spec.successfulJobsHistoryLimit, 'spec.successfulJobsHistoryLimit'));
  errs.push(...nonNegative(spec.failedJobsHistoryLimit, 'spec.failedJobsHistoryLimit'));
  const jt = obj(spec.jobTemplate);
  if (!jt) errs.push(requiredField('spec.jobTemplate'));
  else {
    errs.push(...validateJobSpec(jt.spec, 'spec.jobTemplate.spec', o, false));
  }
  return errs;
}

function isKnownTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return tz.toLowerCase() !== 'local';
  } catch {
    return false;
  }
}

const cronJobs: KindSpec = {
  tracksGeneration: true,
  defaults(o) {
    const spec = child(o, 'spec');
    setDefault(spec, 'concurrencyPolicy', 'Allow');
    setDefault(spec, 'suspend', false);
    setDefault(spec, 'successfulJobsHistoryLimit', 3);
    setDefault(spec, 'failedJobsHistoryLimit', 1);
    defaultPodTemplate(at(spec, 'jobTemplate.spec.template'));
  },
  validate: validateCronJob,
  table: {
    columns: [
      nameColumn,
      column('Schedule', 'string', 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.'),
      column('Suspend', 'boolean', 'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.'),
      column('Active', 'integer', 'A list of pointers to currently running jobs.'),
      column('Last Schedule', 'string', 'Information when was the last time the job was successfully scheduled.'),
      ageColumn,
      wide('Containers', 'string', 'Names of each container in the template.'),
      wide('Images', 'string', 'Images referenced by each container in the template.'),
      wide('Selector', 'string', 'A label query over pods that should match the pod count.'),
    ],
    cells(o, now) {
      const last = at(o, 'status.lastScheduleTime');
      return [
        meta(o).name ?? '',
        str(at(o, 'spec.schedule')) ?? '',
        at(o, 'spec.suspend') === true,
        (Array.isArray(at(o, 'status.active')) ? (at(o, 'status.active') as unknown[]) : []).length,
        typeof last === 'string' ? since(last, now) : '<none>',
        since(meta(o).creationTimestamp, now),
        containerNames(o, 'spec.jobTemplate.spec.template.spec'),
        containerImages(o, 'spec.jobTemplate.spec.template.spec'),
        selectorColumn(at(o, 'spec.jobTemplate.spec.selector')),
      ];
    },
  },
};

export const batchKinds: Record<string, KindSpec> = { CronJob: cronJobs, Job: jobs };
