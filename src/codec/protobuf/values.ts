// The value types with their own string form in JSON: times, quantities, durations. Each
// converts between that form and the numbers the binary messages carry.
import { canonicalQuantity, formatGoDuration, parseGoDuration } from '../../schema/index.js';

/** Seconds of Go's zero time (year 1), which the binary form writes as an empty message. */
export const ZERO_TIME_SECONDS = -62135596800;

interface Timestamp {
  seconds: number;
  nanos: number;
}

const CANONICAL_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

// Times repeat across objects (creation, transition, start times): remember parsed ones.
const timeCache = new Map<string, Timestamp>();
const TIME_CACHE_LIMIT = 4096;

/** Parses an RFC 3339 time as Go's time.Parse does; throws on malformed text. */
export function parseTime(text: string): Timestamp {
  let ts = timeCache.get(text);
  if (ts === undefined) {
    ts = parseTimeUncached(text);
    if (timeCache.size >= TIME_CACHE_LIMIT) timeCache.clear();
    timeCache.set(text, ts);
  }
  return ts;
}

function parseTimeUncached(text: string): Timestamp {
  const m = CANONICAL_TIME.exec(text);
  if (!m) throw new Error(`parsing time ${JSON.stringify(text)} as "2006-01-02T15:04:05Z07:00": cannot parse`);
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) {
    throw new Error(`parsing time ${JSON.stringify(text)}: value out of range`);
  }
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  let seconds = d.getTime() / 1000;
  const zone = m[8];
  if (zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    seconds -= sign * (Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4, 6)) * 60);
  }
  const nanos = m[7] ? Number((m[7] + '00000000').slice(0, 9)) : 0;
  return { seconds, nanos };
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

function isoSeconds(seconds: number): string {
  const d = new Date(seconds * 1000);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`;
}

const formattedTimes = new Map<number, string>();

/** metav1.Time in JSON: UTC, whole seconds (the binary form's nanoseconds are not kept). */
export function formatTime(seconds: number): string {
  let out = formattedTimes.get(seconds);
  if (out === undefined) {
    out = `${isoSeconds(seconds)}Z`;
    if (formattedTimes.size >= TIME_CACHE_LIMIT) formattedTimes.clear();
    formattedTimes.set(seconds, out);
  }
  return out;
}

/** metav1.MicroTime in JSON: UTC with six fraction digits. */
export function formatMicroTime(seconds: number, nanos: number): string {
  return `${isoSeconds(seconds)}.${pad(Math.floor(nanos / 1000), 6)}Z`;
}

// Quantities repeat across objects (`100m`, `128Mi`): remember their canonical forms.
const quantityCache = new Map<string, string>();
const QUANTITY_CACHE_LIMIT = 4096;

/** The canonical string of a quantity; throws with the Kubernetes message when malformed. */
export function quantityString(text: string): string {
  let out = quantityCache.get(text);
  if (out !== undefined) return out;
  out = canonicalQuantity(text);
  if (quantityCache.size >= QUANTITY_CACHE_LIMIT) quantityCache.clear();
  quantityCache.set(text, out);
  return out;
}

export function durationNanos(text: string): number {
  return Number(parseGoDuration(text));
}

export function formatDuration(nanos: number): string {
  return formatGoDuration(BigInt(nanos));
}
