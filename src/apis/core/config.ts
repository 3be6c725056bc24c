// ConfigMaps and Secrets: key format, the 1 MiB size limit, the `immutable` switch, the
// per-type rules of Secrets, and their columns.
import { forbiddenField, invalidField, requiredField, type FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { longDomainKey } from '../../naming/index.js';
import { tooLongField } from '../fielderrors.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, nameColumn, since } from '../table.js';
import { meta, obj, setDefault, str } from '../util.js';
import { immutable } from '../validation.js';
import { deepEqual } from '../../apimachinery/equality.js';
import { setOwn } from '../../apimachinery/own.js';

const CONFIG_KEY = '[-._a-zA-Z0-9]+';
const configKeyRe = new RegExp(`^${CONFIG_KEY}$`);
const MAX_TOTAL_BYTES = 1024 * 1024;

function isConfigKey(key: string): string[] {
  const errs: string[] = [];
  if (key.length > 253) errs.push('must be no more than 253 characters');
  if (!configKeyRe.test(key)) {
    errs.push(
      `a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '${CONFIG_KEY}')`,
    );
  }
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/**
 * Keys of `data` (and `binaryData`): format, no key in both, total size (reported at
 * `sizeField`: the whole object for ConfigMaps, `data` for Secrets).
 */
function validateDataMaps(o: KubeObject, maps: string[], binary: (map: string) => boolean, sizeField = ''): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let total = 0;
  for (const field of maps) {
    const m = o[field];
    if (m === undefined || m === null) continue;
    const data = obj(m);
    if (!data) {
      errs.push(invalidField(field, m, 'must be a map of keys to values'));
      continue;
    }
    for (const [key, value] of Object.entries(data)) {
      const path = `${field}[${key}]`;
      for (const msg of isConfigKey(key)) errs.push(invalidField(path, key, msg));
      if (seen.has(key)) errs.push(invalidField(path, key, 'duplicate of key present in data'));
      seen.add(key);
      if (typeof value !== 'string') {
        errs.push(invalidField(path, value, 'must be a string'));
        continue;
      }
      total += binary(field) ? Math.floor((value.length * 3) / 4) : Buffer.byteLength(value);
    }
  }
  if (total > MAX_TOTAL_BYTES) errs.push(tooLongField(sizeField, MAX_TOTAL_BYTES));
  return errs;
}

const IMMUTABLE_DETAIL = 'field is immutable when `immutable` is set';

function validateImmutable(o: KubeObject, old: KubeObject, maps: string[]): FieldError[] {
  if (old.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (o.immutable !== true) errs.push(forbiddenField('immutable', IMMUTABLE_DETAIL));
  for (const field of maps) {
    if (!deepEqual(o[field] ?? {}, old[field] ?? {})) errs.push(forbiddenField(field, IMMUTABLE_DETAIL));
  }
  return errs;
}

const dataCount = (o: KubeObject, maps: string[]): number =>
  maps.reduce((n, field) => n + Object.keys(obj(o[field]) ?? {}).length, 0);

export const configMaps: KindSpec = {
  validate: (o) => validateDataMaps(o, ['data', 'binaryData'], (f) => f === 'binaryData'),
  validateUpdate: (o, old) => validateImmutable(o, old, ['data', 'binaryData']),
  table: {
    columns: [nameColumn, column('Data', 'string', 'Data contains the configuration data'), ageColumn],
    cells: (o, now) => [meta(o).name ?? '', dataCount(o, ['data', 'binaryData']), since(meta(o).creationTimestamp, now)],
  },
};

/** Secret types with their required keys. */
function secretTypeRules(o: KubeObject): FieldError[] {
  const type = str(o.type) ?? '';
  const data = obj(o.data) ?? {};
  const errs: FieldError[] = [];
  const need = (key: string): void => {
    if (data[key] === undefined) errs.push(requiredField(`data[${key}]`));
  };
  if (type === longDomainKey('service-account-token')) {
    const annotation = longDomainKey('service-account.name');
    const name = meta(o).annotations?.[annotation] ?? '';
    if (name === '') errs.push(requiredField(`metadata.annotations[${annotation}]`));
  } else if (type === longDomainKey('dockercfg')) {
    need('.dockercfg');
  } else if (type === longDomainKey('dockerconfigjson')) {
    need('.dockerconfigjson');
  } else if (type === longDomainKey('basic-auth')) {
    if (data.username === undefined && data.password === undefined) {
      errs.push(requiredField('data[username]'), requiredField('data[password]'));
    }
  } else if (type === longDomainKey('ssh-auth')) {
    need('ssh-privatekey');
  } else if (type === longDomainKey('tls')) {
    need('tls.crt');
    need('tls.key');
  }
  return errs;
}

/**
 * `stringData` is write-only: Kubernetes folds it into `data` when it reads a Secret (a key
 * in both takes the `stringData` value), so it is validated, stored and answered as `data`.
 * A `stringData` or `data` that is not a map of strings is left for validation to refuse.
 */
function foldStringData(o: KubeObject): void {
  if (o.stringData === undefined) return;
  if (o.stringData === null) {
    delete o.stringData;
    return;
  }
  const stringData = obj(o.stringData);
  if (!stringData || !Object.values(stringData).every((v) => typeof v === 'string')) return;
  if (o.data !== undefined && o.data !== null && !obj(o.data)) return;
  const entries = Object.entries(stringData) as [string, string][];
  if (entries.length > 0) {
    const data = obj(o.data) ?? {};
    for (const [key, value] of entries) setOwn(data, key, Buffer.from(value, 'utf8').toString('base64'));
    o.data = data;
  }
  delete o.stringData;
}

export const secrets: KindSpec = {
  defaults(o) {
    foldStringData(o);
    setDefault(o as Record<string, unknown>, 'type', 'Opaque');
  },
  validate: (o) => [
    ...validateDataMaps(o, ['data', 'stringData'], (f) => f === 'data', 'data'),
    ...secretTypeRules(o),
  ],
  validateUpdate: (o, old) => [...immutable(o.type, old.type, 'type'), ...validateImmutable(o, old, ['data'])],
  fields: { type: (o) => str(o.type) ?? '' },
  table: {
    columns: [
      nameColumn,
      column('Type', 'string', 'The type of the secret'),
      column('Data', 'string', 'The number of entries in the secret'),
      ageColumn,
    ],
    cells: (o, now) => [meta(o).name ?? '', str(o.type) ?? '', dataCount(o, ['data']), since(meta(o).creationTimestamp, now)],
  },
};
