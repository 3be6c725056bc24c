// Decoding of the string-encoded value types of the API (times, durations, base64 bytes)
// with the error texts Kubernetes clients see, and their normalized JSON forms.

const RFC3339_LAYOUT = '2006-01-02T15:04:05Z07:00';

/** Layout elements of RFC 3339 in the order a parser meets them. */
const ELEMENTS: { layout: string; pattern: RegExp }[] = [
  { layout: '2006', pattern: /^\d{4}/ },
  { layout: '-', pattern: /^-/ },
  { layout: '01', pattern: /^\d{2}/ },
  { layout: '-', pattern: /^-/ },
  { layout: '02', pattern: /^\d{2}/ },
  { layout: 'T', pattern: /^T/ },
  { layout: '15', pattern: /^\d{2}/ },
  { layout: ':', pattern: /^:/ },
  { layout: '04', pattern: /^\d{2}/ },
  { layout: ':', pattern: /^:/ },
  { layout: '05', pattern: /^\d{2}(?:[.,]\d+)?/ },
  { layout: 'Z07:00', pattern: /^(?:Z|[+-]\d{2}:\d{2})/ },
];

/** Parses an RFC 3339 time; returns epoch microseconds or throws with Go's message. */
function parseRfc3339(value: string): bigint {
  const fail = (detail: string): never => {
    throw new Error(`parsing time ${JSON.stringify(value)}${detail}`);
  };
  let rest = value;
  const parts: string[] = [];
  for (const el of ELEMENTS) {
    const m = el.pattern.exec(rest);
    if (!m) fail(` as "${RFC3339_LAYOUT}": cannot parse ${JSON.stringify(rest)} as "${el.layout}"`);
    parts.push(m![0]);
    rest = rest.slice(m![0].length);
  }
  if (rest) fail(`: extra text: ${JSON.stringify(rest)}`);
  const [year, month, day, hour, minute] = [parts[0], parts[2], parts[4], parts[6], parts[8]].map(Number);
  const [secText, fracText = ''] = parts[10].split(/[.,]/);
  const second = Number(secText);
  if (month < 1 || month > 12) fail(': month out of range');
  const daysIn = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysIn) fail(': day out of range');
  if (hour > 23) fail(': hour out of range');
  if (minute > 59) fail(': minute out of range');
  if (second > 59) fail(': second out of range');
  let offsetMinutes = 0;
  const zone = parts[11];
  if (zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const zh = Number(zone.slice(1, 3));
    const zm = Number(zone.slice(4, 6));
    if (zh > 23 || zm > 59) fail(': time zone offset out of range');
    offsetMinutes = sign * (zh * 60 + zm);
  }
  const base = Date.UTC(year, month - 1, day, hour, minute, second);
  const utc = new Date(base);
  utc.setUTCFullYear(year); // Date.UTC maps years 0..99 to 1900..1999
  const micros = BigInt(Number((fracText + '000000').slice(0, 6)));
  return BigInt(utc.getTime() - offsetMinutes * 60_000) * 1000n + micros;
}

function formatUtc(micros: bigint, fractionDigits: 0 | 6): string {
  const millis = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  const d = new Date(Number(millis));
  const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
  const base = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  if (fractionDigits === 0) return `${base}Z`;
  const frac = ((micros % 1_000_000n) + 1_000_000n) % 1_000_000n;
  return `${base}.${String(frac).padStart(6, '0')}Z`;
}

/** metav1.Time: accepts RFC 3339, serializes in UTC with whole seconds. */
export function normalizeTime(value: string): string {
  return formatUtc(parseRfc3339(value), 0);
}

/** metav1.MicroTime: accepts RFC 3339, serializes in UTC with microseconds. */
export function normalizeMicroTime(value: string): string {
  return formatUtc(parseRfc3339(value), 6);
}

const UNIT_NANOS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n,
  'μs': 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** Parses a Go duration string (`1h30m`, `1.5s`) into nanoseconds; throws with Go's message. */
export function parseGoDuration(text: string): bigint {
  const invalid = (): never => {
    throw new Error(`time: invalid duration ${JSON.stringify(text)}`);
  };
  let s = text;
  let negative = false;
  if (s[0] === '-' || s[0] === '+') {
    negative = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') invalid();
  let total = 0n;
  const re = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;
  while (s) {
    const m = re.exec(s);
    if (!m || (m[1] === '' && (m[2] ?? '') === '')) {
      if (m === null && /^[\d.]+$/.test(s)) throw new Error(`time: missing unit in duration ${JSON.stringify(text)}`);
      if (m === null && /^[\d.]+[a-zA-Zµμ]+/.test(s)) {
        const unit = /^[\d.]+([a-zA-Zµμ]+)/.exec(s)![1];
        throw new Error(`time: unknown unit ${JSON.stringify(unit)} in duration ${JSON.stringify(text)}`);
      }
      invalid();
    }
    const unit = UNIT_NANOS[m![3]];
    const whole = BigInt(m![1] || '0');
    const frac = m![2] ?? '';
    let value = whole * unit;
    if (frac) value += (BigInt(frac) * unit) / 10n ** BigInt(frac.length);
    total += value;
    s = s.slice(m![0].length);
  }
  if (total > 9223372036854775807n) invalid();
  return negative ? -total : total;
}

/** Formats nanoseconds the way Go's time.Duration.String does (`1h0m0s`, `1.5s`, `500ms`). */
export function formatGoDuration(nanos: bigint): string {
  if (nanos === 0n) return '0s';
  const negative = nanos < 0n;
  let u = negative ? -nanos : nanos;
  const sign = negative ? '-' : '';
  const fraction = (value: bigint, digits: number): string => {
    const div = 10n ** BigInt(digits);
    const whole = value / div;
    let frac = String(value % div).padStart(digits, '0').replace(/0+$/, '');
    frac = frac ? `.${frac}` : '';
    return `${whole}${frac}`;
  };
  if (u < 1_000_000_000n) {
    if (u < 1_000n) return `${sign}${u}ns`;
    if (u < 1_000_000n) return `${sign}${fraction(u, 3)}µs`;
    return `${sign}${fraction(u, 6)}ms`;
  }
  const hours = u / 3_600_000_000_000n;
  u %= 3_600_000_000_000n;
  const minutes = u / 60_000_000_000n;
  u %= 60_000_000_000n;
  const seconds = `${fraction(u, 9)}s`;
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
}

export function normalizeDuration(value: string): string {
  return formatGoDuration(parseGoDuration(value));
}

const BASE64_CHAR = /[A-Za-z0-9+/]/;

/**
 * Checks standard, padded base64 as Go's encoding/json decodes []byte (CR and LF are
 * ignored); throws `illegal base64 data at input byte N`.
 */
export function checkBase64(value: string): void {
  const fail = (at: number): never => {
    throw new Error(`illegal base64 data at input byte ${at}`);
  };
  let quantum = 0;
  let padding = 0;
  let quantumStart = 0;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    if (ch === '\r' || ch === '\n') continue;
    if (quantum === 0) quantumStart = i;
    if (ch === '=') {
      if (quantum < 2) fail(i);
      padding++;
      quantum++;
      if (quantum === 4) {
        quantum = 0;
        // Nothing but line breaks may follow the padding.
        for (let j = i + 1; j < value.length; j++) if (value[j] !== '\r' && value[j] !== '\n') fail(j);
        return;
      }
      continue;
    }
    if (padding > 0) fail(i);
    if (!BASE64_CHAR.test(ch)) fail(i);
    quantum = (quantum + 1) % 4;
  }
  // An unfinished group is reported where it starts.
  if (quantum !== 0) fail(quantumStart);
}
