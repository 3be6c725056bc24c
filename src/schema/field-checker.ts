// The field checks the server runs on a decoded POST or PUT body: finds duplicate keys in
// the JSON text (only when the level reports them), checks the object against the catalog,
// prunes unknown fields, and returns the warnings for `Warn`.

import { findDuplicateKeys } from '../codec/strict-json.js';
import { invalid } from '../apimachinery/errors.js';
import { checkObject, type FieldValidation } from './validate.js';

export interface FieldCheckerOptions {
  /**
   * What to do with missing required fields and unsupported enum values: leave them to
   * the kind's strategy (`ignore`, the default) or answer 422 Invalid here (`reject`).
   */
  required?: 'ignore' | 'reject';
}

function isJson(contentType: string): boolean {
  const type = contentType.split(';')[0].trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}

export function createFieldChecker(opts: FieldCheckerOptions = {}) {
  const reject = opts.required === 'reject';
  return (
    body: Uint8Array,
    obj: Record<string, unknown>,
    kind: { group: string; version: string; kind: string },
    level: FieldValidation,
    contentType: string,
  ): string[] => {
    const duplicateFields =
      level !== 'Ignore' && isJson(contentType) ? findDuplicateKeys(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')) : [];
    const result = checkObject(obj, kind, { fieldValidation: level, duplicateFields, checkRequired: reject });
    if (reject && result.errors.length > 0) {
      const meta = obj.metadata as { name?: unknown } | undefined;
      throw invalid({ group: kind.group, kind: kind.kind }, typeof meta?.name === 'string' ? meta.name : '', result.errors);
    }
    return result.warnings;
  };
}
