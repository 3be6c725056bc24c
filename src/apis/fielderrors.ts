// Field errors beyond the shared constructors (Not found, Too long, Too many).
import type { FieldError } from '../apimachinery/errors.js';

export function notFoundField(field: string, value: unknown): FieldError {
  return { type: 'FieldValueNotFound', field, detail: `Not found: ${JSON.stringify(value ?? null)}` };
}

export function tooLongField(field: string, max: number): FieldError {
  return { type: 'FieldValueTooLong', field, detail: `Too long: must have at most ${max} bytes` };
}

export function tooManyField(field: string, actual: number, max: number): FieldError {
  return { type: 'FieldValueTooMany', field, detail: `Too many: ${actual}: must have at most ${max} items` };
}

/** Prefixes every error's field with a parent path (`spec.template` + `.spec.containers`). */
export function under(prefix: string, errors: FieldError[]): FieldError[] {
  return errors.map((e) => ({ ...e, field: e.field ? `${prefix}.${e.field}` : prefix }));
}
