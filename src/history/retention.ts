// `--history-retention`: how long and how many revisions of each object are kept. Pure
// functions: the flag's grammar and which revisions a retention drops.

/** What is kept per object; `undefined` limits nothing. A revision goes once either limit is passed. */
export interface Retention {
  /** Revisions older than this (ms) are dropped. */
  maxAgeMs?: number;
  /** At most this many revisions per object. */
  maxCount?: number;
}

/** The default: an hour and fifty revisions per object. */
export const DEFAULT_RETENTION = '1h,50';

/** The longest duration accepted (a year): larger values are surely a mistake. */
const MAX_AGE_MS = 366 * 24 * 3_600_000;
const MAX_COUNT = 1_000_000;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses `24h`, `100`, `24h,100` (or `100,24h`) and `0` (history off: `undefined`). A duration
 * is one or more `<number><unit>` with units ms, s, m, h, d; a count is a positive integer.
 * Throws an Error naming what is wrong.
 */
export function parseRetention(text: string): Retention | undefined {
  const value = text.trim();
  if (value === '0') return undefined;
  if (value === '') throw new Error('empty value: give a duration (24h), a revision count (100), both (24h,100), or 0 to turn history off');
  const parts = value.split(',');
  if (parts.length > 2) throw new Error(`"${text}": at most a duration and a count, separated by a comma`);
  const out: Retention = {};
  for (const raw of parts) {
    const part = raw.trim();
    if (/^\d+$/.test(part)) {
      if (out.maxCount !== undefined) throw new Error(`"${text}": the revision count is given twice`);
      const n = Number(part);
      if (!Number.isSafeInteger(n) || n < 1 || n > MAX_COUNT) throw new Error(`"${text}": the revision count must be from 1 to ${MAX_COUNT}`);
      out.maxCount = n;
      continue;
    }
    const ms = parseRetentionDuration(part);
    if (ms === undefined) throw new Error(`"${text}": "${part}" is neither a duration (such as 30m, 24h, 7d) nor a revision count`);
    if (out.maxAgeMs !== undefined) throw new Error(`"${text}": the duration is given twice`);
    if (ms <= 0 || ms > MAX_AGE_MS) throw new Error(`"${text}": the duration must be positive and at most 366d`);
    out.maxAgeMs = ms;
  }
  return out;
}

function parseRetentionDuration(text: string): number | undefined {
  const re = /(\d{1,9}(?:\.\d{1,9})?)(ms|s|m|h|d)/y;
  let total = 0;
  let pos = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    pos = re.lastIndex;
  }
  return pos === text.length && text.length > 0 ? total : undefined;
}

/** The flag's value for a retention (the inverse of parseRetention, normalized). */
export function formatRetention(r: Retention | undefined): string {
  if (!r) return '0';
  const parts: string[] = [];
  if (r.maxAgeMs !== undefined) parts.push(`${r.maxAgeMs}ms`);
  if (r.maxCount !== undefined) parts.push(String(r.maxCount));
  return parts.join(',');
}

/**
 * How many of an object's revisions, oldest first with times `timesMs`, to drop from the front
 * at `nowMs`: those past either limit, but never the newest.
 */
export function revisionsToDrop(timesMs: readonly number[], retention: Retention, nowMs: number): number {
  const n = timesMs.length;
  if (n <= 1) return 0;
  let drop = 0;
  if (retention.maxCount !== undefined && n > retention.maxCount) drop = n - retention.maxCount;
  if (retention.maxAgeMs !== undefined) {
    const oldest = nowMs - retention.maxAgeMs;
    while (drop < n && timesMs[drop]! < oldest) drop++;
  }
  return Math.min(drop, n - 1);
}
