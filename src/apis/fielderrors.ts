// Field errors beyond the shared constructors (Not found, Too long, Too many).
import type { FieldError } from '../apimachinery/errors.js';

export function notFoundField(field: string, value: unknown): FieldError {
  return { type: 'FieldValueNotFound', field, detail: `Not found: ${JSON.stringify(value ?? null)}` };
}

export function tooLongField(field: string, max: number): FieldError {
  return { type: 'FieldValueTooLong', field, detail: `Too long: must have at most ${max} bytes` };
}
