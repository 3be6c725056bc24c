// The string formats custom resource validation checks: kube-openapi's strfmt registry minus
// what apiextensions strips (every other format, `int32` and `float` included, is ignored).
// Each check is hand-written after the Go validator it stands for.
import { isIP } from 'node:net';
import { compileGoPattern } from './regex.js';

function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= days[mo - 1];
}

const TIME_OF_DAY = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;

function isDateTime(str: string): boolean {
  if (str.length < 4) return false;
  const parts = str.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0])) return false;
  const m = TIME_OF_DAY.exec(parts[1]);
  if (!m) return false;
  return m[1] <= '23' && m[2] <= '59' && m[3] <= '59';
}

const GO_DURATION = /^[-+]?(\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))*$/;
const SCALA_DURATION = /^\s*(\d+)\s*(ns|nanos?|nanoseconds?|us|micros?|microseconds?|ms|millis?|milliseconds?|s|sec|secs?|seconds?|m|min|mins?|minutes?|h|hrs?|hours?|d|days?|w|wks?|weeks?)\s*$/i;

function isDuration(s: string): boolean {
  return s === '0' || GO_DURATION.test(s) || SCALA_DURATION.test(s);
}

function isIPv4(s: string): boolean {
  // Go's sloppy parser accepts leading zeros in an IPv4 address.
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

function isIPv6(s: string): boolean {
  return s.includes(':') && (isIP(s) === 6 || isIP(s.replace(/^(.*:)((?:0*\d{1,3}\.){3}0*\d{1,3})$/, (_, h: string, v4: string) => h + v4.split('.').map(Number).join('.'))) === 6);
}

function isCIDR(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^\d+$/.test(bits)) return false;
  if (isIPv4(ip)) return Number(bits) <= 32;
  return isIPv6(ip) && Number(bits) <= 128;
}

function isMAC(s: string): boolean {
  return /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$|^([0-9A-Fa-f]{2}[:-]){7}[0-9A-Fa-f]{2}$|^([0-9A-Fa-f]{2}[:-]){19}[0-9A-Fa-f]{2}$|^([0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}$|^([0-9A-Fa-f]{4}\.){3}[0-9A-Fa-f]{4}$|^([0-9A-Fa-f]{4}\.){9}[0-9A-Fa-f]{4}$/.test(s);
}

// strfmt's hostname pattern, in Go syntax: matched by the linear-time engine, since a
// backtracking one could take exponential time on a long value. Compiled on first use.
const HOSTNAME_PATTERN =
  '^([a-zA-Z0-9\\p{S}\\p{L}]((-?[a-zA-Z0-9\\p{S}\\p{L}]{0,62})?)|([a-zA-Z0-9\\p{S}\\p{L}](([a-zA-Z0-9-\\p{S}\\p{L}]{0,61}[a-zA-Z0-9\\p{S}\\p{L}])?)(\\.)){1,}([a-zA-Z\\p{L}]){2,63})$';

function isHostname(s: string): boolean {
  // The length first: a longer name is no hostname, and the pattern's work grows with it.
  if (Buffer.byteLength(s) > 255 || !s.split('.').every((p) => Buffer.byteLength(p) <= 63)) return false;
  const hostname = compileGoPattern(HOSTNAME_PATTERN);
  return hostname.ok && hostname.test(s);
}

function isEmail(s: string): boolean {
  // net/mail.ParseAddress: an optional display name and an addr-spec, in angle brackets or bare.
  const m = /^\s*(?:[^<>]*<([^<>\s]+)>|([^<>\s]+))\s*$/.exec(s);
  const addr = m ? (m[1] ?? m[2]) : '';
  return /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/.test(addr);
}

function isRequestURI(s: string): boolean {
  // url.ParseRequestURI: an absolute URI or an absolute path, no fragment handling.
  if (s.startsWith('/')) return !/\s/.test(s);
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/.exec(s);
  if (!m) return false;
  return ![...m[2]].some((c) => c.charCodeAt(0) <= 0x20 || c.charCodeAt(0) === 0x7f);
}

function luhn(digits: string): boolean {
  let sum = 0;
  let alt = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let n = digits.charCodeAt(i) - 48;
    if (alt) {
      n *= 2;
      if (n > 9) n -= 9;
    }
    sum += n;
    alt = !alt;
  }
  return sum % 10 === 0;
}

function isCreditCard(s: string): boolean {
  const d = s.replace(/[^0-9]/g, '');
  return /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$/.test(d) && luhn(d);
}

/**
 * The characters of `s` other than white space and dashes, or undefined past `max` of them:
 * a long value is no ISBN, and a global replace over a megabyte of separators takes a third
 * of a second.
 */
function compact(s: string, max: number): string | undefined {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 45 || c === 32 || (c >= 9 && c <= 13) || (c > 127 && /\s/.test(s[i]))) continue;
    out += s[i];
    if (out.length > max) return undefined;
  }
  return out;
}

function isISBN10(s: string): boolean {
  const d = compact(s, 10);
  if (d === undefined) return false;
  if (!/^\d{9}[\dX]$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(d[i]);
  sum += d[9] === 'X' ? 100 : 10 * Number(d[9]);
  return sum % 11 === 0;
}

function isISBN13(s: string): boolean {
  const d = compact(s, 13);
  if (d === undefined) return false;
  if (!/^\d{13}$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(d[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(d[12]);
}

function isBase64(s: string): boolean {
  return /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/.test(s);
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;

const CHECKS: Record<string, (s: string) => boolean> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: isRequestURI,
  email: isEmail,
  hostname: isHostname,
  ipv4: isIPv4,
  ipv6: isIPv6,
  cidr: isCIDR,
  mac: isMAC,
  uuid: (s) => UUID.test(s),
  uuid3: (s) => UUID3.test(s),
  uuid4: (s) => UUID4.test(s),
  uuid5: (s) => UUID5.test(s),
  isbn: (s) => isISBN10(s) || isISBN13(s),
  isbn10: isISBN10,
  isbn13: isISBN13,
  creditcard: isCreditCard,
  ssn: (s) => /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s),
  hexcolor: (s) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s),
  rgbcolor: (s) => /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/.test(s),
  byte: isBase64,
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
};

/** The check for a declared format, or undefined when Kubernetes does not check it. */
export function formatCheck(format: string): ((s: string) => boolean) | undefined {
  const normalized = format.replaceAll('-', '');
  return Object.hasOwn(CHECKS, normalized) ? CHECKS[normalized] : undefined;
}
