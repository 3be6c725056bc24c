// resource.Quantity: parsing and the canonical serialization Kubernetes returns
// (`1000m` reads back as `1`, `0.5` as `500m`, `1024Mi` as `1Gi`). Values are exact:
// a BigInt mantissa and a power of ten, so nothing is lost to floating point.

/** The field error for a malformed quantity in an object's fields. */
export const QUANTITY_MESSAGE = "must match the regex '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

export const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

type Format = 'BinarySI' | 'DecimalSI' | 'DecimalExponent';

export interface Quantity {
  negative: boolean;
  /** |value| = mantissa * 10^scale. */
  mantissa: bigint;
  scale: number;
  format: Format;
}

const SPLIT = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const DECIMAL_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIX: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIX).map(([k, v]) => [v, k]));
const BINARY_BY_POWER = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
/** Kubernetes keeps nano precision and rounds anything finer up. */
const MIN_SCALE = -9;

/** Parses a quantity; throws an Error with the Kubernetes message when malformed. */
export function parseQuantity(text: string): Quantity {
  const s = text.trim();
  const m = SPLIT.exec(s);
  if (!s || !m) throw new Error(QUANTITY_FORMAT_ERROR);
  let number = m[1];
  const suffix = m[2];
  let negative = false;
  if (number[0] === '+' || number[0] === '-') {
    negative = number[0] === '-';
    number = number.slice(1);
  }
  const parts = number.split('.');
  if (parts.length > 2 || (parts[0] === '' && (parts[1] ?? '') === '')) throw new Error('unable to parse numeric part of quantity');
  const whole = parts[0];
  const fraction = parts[1] ?? '';
  let mantissa = BigInt(`${whole}${fraction}` || '0');
  let scale = -fraction.length;
  let format: Format;
  if (suffix in DECIMAL_SUFFIX) {
    format = 'DecimalSI';
    scale += DECIMAL_SUFFIX[suffix];
  } else if (suffix in BINARY_SUFFIX) {
    format = 'BinarySI';
    mantissa *= 1n << BigInt(10 * BINARY_SUFFIX[suffix]);
  } else if (/^[eE][-+]?[0-9]+$/.test(suffix)) {
    format = 'DecimalExponent';
    scale += Number(suffix.slice(1));
  } else {
    throw new Error("unable to parse quantity's suffix");
  }
  if (scale < MIN_SCALE) {
    const divisor = 10n ** BigInt(MIN_SCALE - scale);
    mantissa = (mantissa + divisor - 1n) / divisor;
    scale = MIN_SCALE;
  }
  if (mantissa === 0n) negative = false;
  return { negative, mantissa, scale, format };
}

/** The signed value in units of 10^-9, exact (parsing keeps no finer precision). */
export function nanoValue(q: Quantity): bigint {
  const n = q.mantissa * 10n ** BigInt(q.scale - MIN_SCALE);
  return q.negative ? -n : n;
}

/**
 * The nano value of a member that should hold a quantity (a string, or a JSON number), for
 * comparisons such as requests against limits; undefined when it is not a quantity.
 */
export function quantityNanos(value: unknown): bigint | undefined {
  if (typeof value === 'number' ? !Number.isFinite(value) : typeof value !== 'string') return undefined;
  try {
    return nanoValue(parseQuantity(String(value)));
  } catch {
    return undefined;
  }
}

/** The canonical string of a quantity, as Kubernetes serializes it. */
export function formatQuantity(q: Quantity): string {
  if (q.mantissa === 0n) return '0';
  const sign = q.negative ? '-' : '';
  if (q.format === 'BinarySI') {
    const integer = integerValue(q);
    // Small or fractional binary values read better, and exactly, in decimal form.
    if (integer !== undefined && integer >= 1024n) {
      let n = integer;
      let power = 0;
      while (power < 6 && n % 1024n === 0n) {
        n /= 1024n;
        power++;
      }
      return `${sign}${n}${BINARY_BY_POWER[power]}`;
    }
    return formatDecimal({ ...q, format: 'DecimalSI' });
  }
  return formatDecimal(q);
}

function integerValue(q: Quantity): bigint | undefined {
  if (q.scale >= 0) return q.mantissa * 10n ** BigInt(q.scale);
  const d = 10n ** BigInt(-q.scale);
  return q.mantissa % d === 0n ? q.mantissa / d : undefined;
}

function formatDecimal(q: Quantity): string {
  let mantissa = q.mantissa;
  let exponent = q.scale;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent++;
  }
  // Exponents are shown in steps of three; move the rest into the mantissa.
  const extra = ((exponent % 3) + 3) % 3;
  mantissa *= 10n ** BigInt(extra);
  exponent -= extra;
  const sign = q.negative ? '-' : '';
  if (q.format === 'DecimalSI') {
    const suffix = DECIMAL_BY_EXPONENT.get(exponent);
    if (suffix !== undefined) return `${sign}${mantissa}${suffix}`;
  }
  return exponent === 0 ? `${sign}${mantissa}` : `${sign}${mantissa}e${exponent}`;
}

/** Parses and re-serializes; throws with the Kubernetes message when malformed. */
export function canonicalQuantity(text: string): string {
  return formatQuantity(parseQuantity(text));
}
