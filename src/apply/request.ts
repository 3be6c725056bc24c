// The apply request: its body (a YAML or JSON configuration) and its options.
import { badRequest, invalid, invalidField, requiredField, type FieldError } from '../apimachinery/errors.js';
import { isPlainObject, type KubeObject } from '../apimachinery/types.js';
import { readYamlAsync } from '../codec/yaml-pool.js';
import { readYaml, YamlSyntaxError } from '../codec/yaml.js';
import { metaGroup } from '../naming/index.js';

const decoder = new TextDecoder();

/** Reads an apply body: YAML, of which JSON is a part. Throws 400 as Kubernetes words it. */
export function decodeApplyConfiguration(raw: Uint8Array): KubeObject {
  return applyConfiguration(() => readYaml(decoder.decode(raw)));
}

/** The same, with large YAML bodies read off the event loop. */
export async function decodeApplyConfigurationAsync(raw: Uint8Array): Promise<KubeObject> {
  let value: unknown;
  try {
    value = await readYamlAsync(decoder.decode(raw));
  } catch (e) {
    value = failure(e);
  }
  return applyConfiguration(() => value);
}

function failure(e: unknown): never {
  // The apply handler reads the body with the YAML library Kubernetes uses, whose errors it prefixes.
  if (e instanceof YamlSyntaxError) throw badRequest(`error decoding YAML: error converting YAML to JSON: ${e.message}`);
  throw e;
}

function applyConfiguration(read: () => unknown): KubeObject {
  let value: unknown;
  try {
    value = read();
  } catch (e) {
    failure(e);
  }
  if (value === null || value === undefined) value = {};
  if (!isPlainObject(value)) {
    throw badRequest(`error decoding YAML: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into an object`);
  }
  return value as KubeObject;
}

/** PatchOptions of an apply: `fieldManager` is required; a missing one is 422, as Kubernetes validates PatchOptions. */
export function validateApplyOptions(fieldManager: string | null): string {
  const errs = fieldManager ? fieldManagerErrors(fieldManager) : [requiredField('fieldManager', 'is required for apply patch')];
  if (errs.length > 0) throw invalid({ group: metaGroup(), kind: 'PatchOptions' }, '', errs);
  return fieldManager ?? '';
}

const FIELD_MANAGER_MAX_LENGTH = 128;

/** A manager name is at most 128 bytes of printable characters. */
export function fieldManagerErrors(fieldManager: string): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(fieldManager) > FIELD_MANAGER_MAX_LENGTH) {
    errs.push({ type: 'FieldValueTooLong', field: 'fieldManager', detail: `Too long: must have at most ${FIELD_MANAGER_MAX_LENGTH} bytes` });
  }
  let position = 0;
  for (const ch of fieldManager) {
    if (!isPrintable(ch)) {
      const code = (ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
      errs.push(invalidField('fieldManager', fieldManager, `invalid character U+${code} (at position ${position})`));
    }
    position += Buffer.byteLength(ch);
  }
  return errs;
}

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
export function isPrintable(ch: string): boolean {
  return ch === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch);
}

const TRUE_VALUES = new Set(['1', 't', 'T', 'true', 'TRUE', 'True']);

/** The `force` query parameter as a boolean, the way Go parses one. */
export function parseForce(value: string | null): boolean {
  return value !== null && TRUE_VALUES.has(value);
}

/**
 * The apply body must be of the resource's own version and, when `expectedKind` is given,
 * its kind: a StatefulSet applied to the deployments is refused, not stored as a Deployment.
 */
export function checkApplyVersion(config: KubeObject, expectedApiVersion: string, expectedKind?: string): void {
  const got = typeof config.apiVersion === 'string' ? config.apiVersion : '';
  if (got !== expectedApiVersion) {
    throw badRequest(`Incorrect version specified in apply patch. Specified patch version: ${got}, expected: ${expectedApiVersion}`);
  }
  const kind = typeof config.kind === 'string' ? config.kind : '';
  if (expectedKind !== undefined && kind !== expectedKind) {
    // Go prints a group-version-kind as `group/version, Kind=Kind` (the core group is empty).
    const gv = got.includes('/') ? got : `/${got}`;
    throw badRequest(`invalid object type: ${gv}, Kind=${kind}`);
  }
}
