// CronJob schedules: parsing (five fields, the descriptors, `@every`, a `TZ=`/`CRON_TZ=`
// prefix, the `timeZone` field) and the times the CronJob controller acts on. Pure functions
// over dates; the next occurrence of a cron expression comes from cron-parser.
import { CronExpressionParser } from 'cron-parser';
import { cronScheduleError } from '../../apis/batch/cron.js';

export interface Schedule {
  /** The first activation strictly after `t` (whole seconds). */
  next(t: Date): Date;
}

/** The five-field spelling of the descriptors the standard parser accepts. */
const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** Whether `tz` names an IANA zone this runtime knows (`Local` is refused: it means the server's zone). */
export function isKnownTimeZone(tz: string): boolean {
  if (tz === '' || tz.toLowerCase() === 'local') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const GO_DURATION_UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Go duration (`1h30m`, `90s`) in milliseconds, or undefined. */
function parseGoDuration(text: string): number | undefined {
  if (!/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(text)) return undefined;
  let total = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) total += Number(m[1]) * GO_DURATION_UNITS[m[2]];
  return total;
}

/**
 * The schedule of `spec.schedule` in `timeZone` (UTC when unset). A `TZ=` or `CRON_TZ=` prefix
 * names the zone as the standard parser allows. Throws an Error whose message is the parser's.
 */
export function parseSchedule(schedule: string, timeZone?: string): Schedule {
  let spec = schedule.trim();
  let tz = timeZone ?? 'UTC';
  const prefix = /^(?:CRON_)?TZ=(\S*)\s*/.exec(spec);
  if (prefix) {
    if (!isKnownTimeZone(prefix[1])) throw new Error(`provided bad location ${prefix[1]}: unknown time zone ${prefix[1]}`);
    tz = prefix[1];
    spec = spec.slice(prefix[0].length);
  }
  const err = cronScheduleError(spec);
  if (err) throw new Error(err);
  if (spec.startsWith('@every ')) {
    // A constant delay: at least a second, counted from whole seconds.
    const delay = Math.max(1000, Math.round((parseGoDuration(spec.slice(7).trim()) ?? 0) / 1000) * 1000);
    return { next: (t) => new Date(Math.floor(t.getTime() / 1000) * 1000 + delay) };
  }
  const expression = DESCRIPTORS[spec] ?? spec;
  // Validated above; parse once here so an expression the library refuses fails now, not later.
  CronExpressionParser.parse(expression, { tz, currentDate: new Date(0) });
  return {
    next(t) {
      const it = CronExpressionParser.parse(expression, { tz, currentDate: new Date(Math.floor(t.getTime() / 1000) * 1000) });
      return it.next().toDate();
    },
  };
}

export interface MostRecent {
  /** The latest activation in (earliest, now], if any. */
  time?: Date;
  /** How many activations fell in (earliest, now] (estimated past a hundred). */
  missed: number;
}

/**
 * The latest activation after `earliest` and at or before `now`. Throws when two activations
 * are less than a second apart (Kubernetes' message).
 */
export function mostRecentScheduleTime(schedule: Schedule, earliest: Date, now: Date): MostRecent {
  const t1 = schedule.next(earliest);
  if (now < t1) return { missed: 0 };
  const t2 = schedule.next(t1);
  if (now < t2) return { time: t1, missed: 1 };
  const between = Math.round((t2.getTime() - t1.getTime()) / 1000) * 1000;
  if (between < 1000) throw new Error('time difference between two schedules is less than 1 second');
  // Walk at most a little over a hundred activations; past that, estimate the count from the
  // interval and start walking near `now` (schedules are periodic enough for that).
  let count = 2;
  let last = t2;
  for (let t = schedule.next(t2); t <= now; t = schedule.next(t)) {
    last = t;
    count++;
    if (count > 101) {
      const estimated = Math.floor((now.getTime() - t1.getTime()) / between) + 1;
      let cursor = new Date(Math.max(t.getTime(), now.getTime() - 2 * between));
      let latest = t;
      for (let u = schedule.next(cursor); u <= now; u = schedule.next(u)) latest = u;
      cursor = latest;
      return { time: cursor, missed: Math.max(estimated, count) };
    }
  }
  return { time: last, missed: count };
}

/** The name of the Job for one activation: the CronJob's name and the activation's minutes since the epoch. */
export function jobNameFor(cronJobName: string, scheduled: Date): string {
  return `${cronJobName}-${Math.floor(scheduled.getTime() / 60_000)}`;
}
