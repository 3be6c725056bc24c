// Maps built from what clients send (header names, JSON keys of reviews and webhook answers,
// token claims) hold `__proto__`, `constructor` and `prototype` as ordinary keys: they are
// written as own properties and read only when own, never through the prototype chain
// (single members with apimachinery's setOwn and getOwn; lists of header values here).
import { setOwn } from '../apimachinery/own.js';

/** Appends to the list under `key`, creating it as an own property. */
export function appendOwn(obj: Record<string, string[]>, key: string, values: string[]): void {
  const list = Object.hasOwn(obj, key) ? obj[key] : undefined;
  if (list) list.push(...values);
  else setOwn(obj, key, [...values]);
}

/**
 * Request headers with each occurrence's value kept apart (lower-case names, values in
 * order), from Node's flat `rawHeaders` list; Node's `headers` joins repeated unknown headers
 * with ", ", which would make `X-Remote-Group: a` and `X-Remote-Group: b` one group "a, b".
 */
export function distinctHeaders(rawHeaders: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) appendOwn(out, rawHeaders[i]!.toLowerCase(), [rawHeaders[i + 1]!]);
  return out;
}
