// Core v1 Events (also the storage of events.<domain>/v1): create-on-update, the
// involved-object field selectors, and the event columns.
import { invalidField, type FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import type { KindSpec } from '../strategy.js';
import { column, since, wide } from '../table.js';
import { at, meta, num, obj, str } from '../util.js';

const inv = (field: string) => (o: KubeObject): string => str(at(o, `involvedObject.${field}`)) ?? '';

function validate(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const ns = meta(o).namespace ?? '';
  const involvedNs = str(at(o, 'involvedObject.namespace')) ?? '';
  if (involvedNs !== '' && ns !== '' && involvedNs !== ns) {
    errs.push(invalidField('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
  }
  return errs;
}

function firstNonEmpty(...values: (string | undefined)[]): string {
  return values.find((v) => v !== undefined && v !== '') ?? '';
}

function formatSource(o: KubeObject): string {
  const component = firstNonEmpty(str(at(o, 'source.component')), str(o.reportingComponent));
  const instance = firstNonEmpty(str(at(o, 'source.host')), str(o.reportingInstance));
  if (component === '') return '';
  return instance === '' ? component : `${component}, ${instance}`;
}

/** The event row; works on core v1 Events. */
function cells(o: KubeObject, now: Date): unknown[] {
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
  allowCreateOnUpdate: true,
  validate,
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
