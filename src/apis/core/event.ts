// Core v1 Events (also the storage of events.<domain>/v1): create-on-update, the
// involved-object field selectors, and the event columns.
import { invalidField, requiredField, type FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { systemNamespace } from '../../naming/index.js';
import { eventsV1ToCore } from '../events/index.js';
import type { KindSpec } from '../strategy.js';
import { column, since, wide } from '../table.js';
import { at, meta, num, obj, str } from '../util.js';
import { immutable, isQualifiedName } from '../validation.js';

const inv = (field: string) => (o: KubeObject): string => str(at(o, `involvedObject.${field}`)) ?? '';

const LENGTH_LIMIT = 128;
const NOTE_LENGTH_LIMIT = 1024;

/**
 * Checks every Event passes, whatever API wrote it. Old-style events (no eventTime) must
 * agree with their involved object's namespace; new-style ones need the reporting fields.
 * `reportingField` is the reporting controller's name in the writer's API.
 */
function legacyValidate(o: KubeObject, reportingField: string): FieldError[] {
  const errs: FieldError[] = [];
  const ns = meta(o).namespace ?? '';
  const involvedNs = str(at(o, 'involvedObject.namespace')) ?? '';
  const mismatch = (): FieldError => invalidField('involvedObject.namespace', involvedNs, 'does not match event.namespace');
  if (!str(o.eventTime)) {
    if (involvedNs === '') {
      // Events about cluster-scoped objects live in the default namespace.
      if (ns !== '' && ns !== 'default') errs.push(mismatch());
    } else if (ns !== involvedNs) {
      errs.push(mismatch());
    }
    return errs;
  }
  if (involvedNs === '' && ns !== 'default' && ns !== systemNamespace('system')) errs.push(mismatch());
  const controller = str(o.reportingComponent) ?? '';
  if (controller === '') errs.push(requiredField(reportingField));
  else for (const m of isQualifiedName(controller)) errs.push(invalidField(reportingField, controller, m));
  const limited = (field: string, value: string | undefined, limit: number, path = field): void => {
    if (!value) errs.push(requiredField(path));
    else if (value.length > limit) errs.push(invalidField(path, '', `can have at most ${limit} characters`));
  };
  limited('reportingInstance', str(o.reportingInstance), LENGTH_LIMIT);
  limited('action', str(o.action), LENGTH_LIMIT);
  limited('reason', str(o.reason), LENGTH_LIMIT);
  if ((str(o.message) ?? '').length > NOTE_LENGTH_LIMIT) errs.push(invalidField('message', '', `can have at most ${NOTE_LENGTH_LIMIT} characters`));
  return errs;
}

/** What events.<domain>/v1 adds on create: a new-style event without the legacy fields. */
function strictValidate(o: KubeObject): FieldError[] {
  const errs = legacyValidate(o, 'reportingController');
  const series = obj(o.series);
  if (series) {
    if ((num(series.count) ?? 0) < 2) errs.push(invalidField('series.count', '', 'should be at least 2'));
    if (!str(series.lastObservedTime)) errs.push(requiredField('series.lastObservedTime'));
  }
  if (!str(o.eventTime)) errs.push(requiredField('eventTime'));
  if (o.type !== 'Normal' && o.type !== 'Warning') errs.push(invalidField('type', '', `has invalid value: ${str(o.type) ?? ''}`));
  if (str(o.firstTimestamp)) errs.push(invalidField('firstTimestamp', '', 'needs to be unset'));
  if (str(o.lastTimestamp)) errs.push(invalidField('lastTimestamp', '', 'needs to be unset'));
  if ((num(o.count) ?? 0) !== 0) errs.push(invalidField('count', '', 'needs to be unset'));
  if (str(at(o, 'source.component')) || str(at(o, 'source.host'))) errs.push(invalidField('source', '', 'needs to be unset'));
  return errs;
}

/** Fields an events.<domain>/v1 update may not change: [core v1 field, name in errors]. */
const STRICT_IMMUTABLE: [string, string][] = [
  ['involvedObject', 'involvedObject'],
  ['reason', 'reason'],
  ['message', 'message'],
  ['source', 'source'],
  ['firstTimestamp', 'firstTimestamp'],
  ['lastTimestamp', 'lastTimestamp'],
  ['count', 'count'],
  ['type', 'type'],
  ['action', 'action'],
  ['related', 'related'],
  ['reportingComponent', 'reportingController'],
  ['reportingInstance', 'reportingInstance'],
  ['eventTime', 'eventTime'],
];

function firstNonEmpty(...values: (string | undefined)[]): string {
  return values.find((v) => v !== undefined && v !== '') ?? '';
}

function formatSource(o: KubeObject): string {
  const component = firstNonEmpty(str(at(o, 'source.component')), str(o.reportingComponent));
  const instance = firstNonEmpty(str(at(o, 'source.host')), str(o.reportingInstance));
  if (component === '') return '';
  return instance === '' ? component : `${component}, ${instance}`;
}

/** The event row, from a core v1 Event (or an events.<domain>/v1 one, read through its core names). */
function cells(raw: KubeObject, now: Date): unknown[] {
  const o = raw.involvedObject === undefined && raw.regarding !== undefined ? eventsV1ToCore(raw) : raw;
  const first = str(o.firstTimestamp) ? since(o.firstTimestamp, now) : since(o.eventTime, now);
  let last = str(o.lastTimestamp) ? since(o.lastTimestamp, now) : first;
  let count = num(o.count) ?? 0;
  const series = obj(o.series);
  if (series) {
    last = since(series.lastObservedTime, now);
    count = num(series.count) ?? 0;
  } else if (count === 0) {
    count = 1;
  }
  const kind = (str(at(o, 'involvedObject.kind')) ?? '').toLowerCase();
  const name = str(at(o, 'involvedObject.name')) ?? '';
  return [
    last,
    str(o.type) ?? '',
    str(o.reason) ?? '',
    name ? `${kind}/${name}` : kind,
    str(at(o, 'involvedObject.fieldPath')) ?? '',
    formatSource(o),
    (str(o.message) ?? '').trim(),
    first,
    count,
    meta(o).name ?? '',
  ];
}

export const events: KindSpec = {
  defaultGarbageCollectionPolicy: 'Unsupported',
  allowCreateOnUpdate: true,
  validate: (o) => legacyValidate(o, 'reportingComponent'),
  fields: {
    'involvedObject.kind': inv('kind'),
    'involvedObject.namespace': inv('namespace'),
    'involvedObject.name': inv('name'),
    'involvedObject.uid': inv('uid'),
    'involvedObject.apiVersion': inv('apiVersion'),
    'involvedObject.resourceVersion': inv('resourceVersion'),
    'involvedObject.fieldPath': inv('fieldPath'),
    reason: (o) => str(o.reason) ?? '',
    reportingComponent: (o) => str(o.reportingComponent) ?? '',
    source: (o) => str(at(o, 'source.component')) ?? '',
    type: (o) => str(o.type) ?? '',
  },
  table: {
    columns: [
      column('Last Seen', 'string', 'Time when last event from this group was recorded'),
      column('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future.'),
      column('Reason', 'string', 'This should be a short, machine understandable string that gives the reason for the transition into the object\'s current status.'),
      column('Object', 'string', 'The object this Event is about.'),
      wide('Subobject', 'string', 'The subobject this Event is about.'),
      wide('Source', 'string', 'The component reporting this event. Should be a short machine understandable string.'),
      column('Message', 'string', 'A human-readable description of the status of this operation.'),
      wide('First Seen', 'string', 'The time at which the event was first recorded.'),
      wide('Count', 'string', 'The number of times this event has occurred.'),
      wide('Name', 'string', 'Name of the event.'),
    ],
    cells,
  },
};

/** The same kind written through events.<domain>/v1: stricter on create, immutable but for the series. */
export const eventsV1: KindSpec = {
  defaultGarbageCollectionPolicy: 'Unsupported',
  ...events,
  validate: strictValidate,
  validateUpdate: (o, old) => STRICT_IMMUTABLE.flatMap(([field, name]) => immutable(o[field], old[field], name)),
};
