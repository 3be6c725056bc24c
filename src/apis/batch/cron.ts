// Cron schedule checks: five fields (minute hour day-of-month month day-of-week) or a
// descriptor (`@daily`, `@every 1h`), with the messages of the parser Kubernetes uses.

interface FieldBounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MONTHS = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DAYS = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

const BOUNDS: FieldBounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: DAYS },
];

const DESCRIPTORS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

function parseValue(text: string, b: FieldBounds): number {
  const named = b.names?.[text.toLowerCase()];
  if (named !== undefined) return named;
  if (!/^\d+$/.test(text)) throw new Error(`failed to parse int from ${text}: strconv.Atoi: parsing "${text}": invalid syntax`);
  return Number(text);
}

function checkRange(expr: string, b: FieldBounds): void {
  const [rangePart, stepPart, ...extra] = expr.split('/');
  if (extra.length > 0) throw new Error(`too many slashes: ${expr}`);
  let start: number;
  let end: number;
  if (rangePart === '*' || rangePart === '?') {
    start = b.min;
    end = b.max;
  } else {
    const bounds = rangePart.split('-');
    if (bounds.length > 2) throw new Error(`too many hyphens: ${expr}`);
    start = parseValue(bounds[0], b);
    end = bounds.length === 2 ? parseValue(bounds[1], b) : start;
  }
  if (stepPart !== undefined) {
    const step = parseValue(stepPart, b);
    if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
  }
  if (start < b.min) throw new Error(`beginning of range (${start}) below minimum (${b.min}): ${expr}`);
  if (end > b.max) throw new Error(`end of range (${end}) above maximum (${b.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
}

/** The parse error of a schedule, or undefined when it is valid. */
export function cronScheduleError(schedule: string): string | undefined {
  const spec = schedule.trim();
  if (spec === '') return 'empty spec string';
  try {
    if (spec.startsWith('@')) {
      if (DESCRIPTORS.includes(spec)) return undefined;
      if (spec.startsWith('@every ')) {
        if (!/^\d+(\.\d+)?(ns|us|µs|ms|s|m|h)(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))*$/.test(spec.slice(7).trim())) {
          throw new Error(`failed to parse duration ${spec}: time: invalid duration "${spec.slice(7).trim()}"`);
        }
        return undefined;
      }
      throw new Error(`unrecognized descriptor: ${spec}`);
    }
    const fields = spec.split(/\s+/);
    if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: ${spec}`);
    fields.forEach((f, i) => {
      for (const part of f.split(',')) checkRange(part, BOUNDS[i]);
    });
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
