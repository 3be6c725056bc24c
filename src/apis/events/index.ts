// events.<domain>/v1 Event, stored as core v1 Event: the same data under other names
// (regarding/involvedObject, note/message, deprecated* for the legacy counters and source,
// reportingController/reportingComponent).
import { apiVersionOf } from '../../apimachinery/types.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { group } from '../../naming/index.js';
import type { VersionConversion } from '../../rest/index.js';
import { clone } from '../util.js';

/** [events.<domain>/v1 field, core v1 field] */
const RENAMES: [string, string][] = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
  ['reportingController', 'reportingComponent'],
];

function rename(o: KubeObject, pairs: [string, string][], apiVersion: string): KubeObject {
  const out = clone(o);
  out.apiVersion = apiVersion;
  for (const [from, to] of pairs) {
    delete out[to];
    if (o[from] !== undefined) out[to] = clone(o[from]);
    delete out[from];
  }
  return out;
}

export function eventsV1ToCore(o: KubeObject): KubeObject {
  return rename(o, RENAMES, 'v1');
}

export function coreToEventsV1(o: KubeObject): KubeObject {
  return rename(
    o,
    RENAMES.map(([a, b]) => [b, a]),
    apiVersionOf({ group: group('events'), version: 'v1' }),
  );
}

const eventsV1Conversion: VersionConversion = { toStorage: eventsV1ToCore, fromStorage: coreToEventsV1 };

export const eventsConversions: Record<string, VersionConversion> = { 'events/v1/Event': eventsV1Conversion };
