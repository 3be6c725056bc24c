// RFC 6902 JSON patch with the semantics kube-apiserver applies (it uses the evanphx
// json-patch v4 engine): negative array indices count from the end, `replace` of a missing
// object member adds it, `copy` from a missing object member copies null, and a path's first
// segment is skipped whatever it holds. A malformed patch document is a 400 with Go's decoder
// text; any failure while applying (including a failing `test`) is the generic 422.

import { badRequest, requestEntityTooLarge, unprocessablePatch } from './errors.js';
import { clone, jsonKind, type JsonObject } from './json-value.js';
import { getOwn, setOwn } from '../apimachinery/own.js';
import { deepEqual } from '../apimachinery/equality.js';
import { isPlainObject } from '../apimachinery/types.js';

/** More operations than this in one patch are refused (413), as Kubernetes does. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

/** The most `copy` operations of one patch may add, in bytes of JSON (kube-apiserver's default). */
export const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

export interface JsonPatchOptions {
  /** Limit on the bytes `copy` operations add; defaults to MAX_JSON_PATCH_COPY_BYTES. */
  maxCopyBytes?: number;
}

/** One operation as sent; fields are checked when the operation is applied. */
export type JsonPatchOperation = JsonObject;

class ApplyFailure extends Error {}

/**
 * Applies `ops` (the decoded request body) to `doc` and returns the new document; the
 * inputs are not modified.
 */
export function applyJsonPatch(doc: unknown, ops: unknown, options: JsonPatchOptions = {}): unknown {
  const operations = decodeOperations(ops);
  if (operations.length > MAX_JSON_PATCH_OPERATIONS) {
    throw requestEntityTooLarge(
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${operations.length}`,
    );
  }
  const root: Root = { doc: clone(doc), copied: 0, maxCopyBytes: options.maxCopyBytes ?? MAX_JSON_PATCH_COPY_BYTES };
  try {
    for (const op of operations) applyOperation(root, op);
  } catch (e) {
    if (e instanceof ApplyFailure) throw unprocessablePatch(e.message);
    throw e;
  }
  return root.doc;
}

function decodeOperations(ops: unknown): (JsonObject | null)[] {
  if (ops === null) return [];
  if (!Array.isArray(ops)) {
    throw badRequest(`json: cannot unmarshal ${jsonKind(ops)} into Go value of type jsonpatch.Patch`);
  }
  const bad = ops.find((op) => op !== null && !isPlainObject(op));
  if (bad !== undefined) {
    throw badRequest(`json: cannot unmarshal ${jsonKind(bad)} into Go value of type jsonpatch.Operation`);
  }
  return ops as (JsonObject | null)[];
}

const STRICT_FIELDS = new Set(['op', 'path', 'from', 'value']);

/**
 * The strict reading of a JSON patch that Kubernetes adds when `fieldValidation` is `Warn`
 * or `Strict`: wrong field types are a 400, unknown fields come back as
 * `json patch unknown field "x"` (for the caller to warn about or reject).
 */
export function jsonPatchStrictErrors(ops: unknown): string[] {
  const fail = (detail: string) => badRequest(`error decoding patch: json: ${detail}`);
  if (ops === null) return [];
  if (!Array.isArray(ops)) throw fail(`cannot unmarshal ${jsonKind(ops)} into Go value of type []handlers.jsonPatchOp`);
  const unknown: string[] = [];
  let firstTypeError: string | undefined;
  for (const op of ops) {
    if (op === null) continue;
    if (!isPlainObject(op)) {
      firstTypeError ??= `cannot unmarshal ${jsonKind(op)} into Go value of type handlers.jsonPatchOp`;
      continue;
    }
    for (const [key, value] of Object.entries(op)) {
      if (!STRICT_FIELDS.has(key)) unknown.push(`json patch unknown field ${JSON.stringify(key)}`);
      else if (key !== 'value' && value !== null && typeof value !== 'string') {
        firstTypeError ??= `cannot unmarshal ${jsonKind(value)} into Go struct field jsonPatchOp.${key} of type string`;
      }
    }
  }
  if (firstTypeError) throw fail(firstTypeError);
  return unknown;
}

// --- applying ---------------------------------------------------------------------------

type Container = JsonObject | unknown[];

interface Root {
  doc: unknown;
  /** Bytes added by `copy` so far. */
  copied: number;
  maxCopyBytes: number;
}

function stringField(op: JsonObject, name: 'path' | 'from', kind: string): string {
  const v = getOwn(op, name);
  if (v === undefined || v === null) throw new ApplyFailure(`${kind} operation missing ${name} field`);
  if (typeof v !== 'string') throw new ApplyFailure(`${kind} operation failed to decode ${name}`);
  return v;
}

/** An absent `value` is applied as null, as the engine Kubernetes uses does. */
function valueOf(op: JsonObject): unknown {
  return getOwn(op, 'value') ?? null;
}

function applyOperation(root: Root, op: JsonObject | null): void {
  const kind = op && typeof op.op === 'string' ? op.op : 'unknown';
  if (!op) throw new ApplyFailure(`Unexpected kind: ${kind}`);
  switch (kind) {
    case 'add': {
      const path = stringField(op, 'path', kind);
      const [con, key] = locate(root.doc, path, `add operation does not apply: doc is missing path: "${path}"`);
      add(con, key, clone(valueOf(op)), path);
      return;
    }
    case 'remove': {
      const path = stringField(op, 'path', kind);
      const [con, key] = locate(root.doc, path, `remove operation does not apply: doc is missing path: "${path}"`);
      remove(con, key, path);
      return;
    }
    case 'replace': {
      const path = stringField(op, 'path', kind);
      if (path === '') {
        const value = valueOf(op);
        if (!isPlainObject(value) && !Array.isArray(value)) throw new ApplyFailure('replace operation value must be object or array');
        root.doc = clone(value);
        return;
      }
      const [con, key] = locate(root.doc, path, `replace operation does not apply: doc is missing path: ${path}`);
      if (Array.isArray(con)) {
        const i = arrayIndex(key, con.length, path);
        con[i] = clone(valueOf(op));
      } else {
        // A missing member is added rather than refused (the engine's behaviour).
        setOwn(con, key, clone(valueOf(op)));
      }
      return;
    }
    case 'move': {
      const from = stringField(op, 'from', kind);
      const [src, srcKey] = locate(root.doc, from, `move operation does not apply: doc is missing from path: ${from}`);
      const value = get(src, srcKey, from);
      remove(src, srcKey, from);
      const path = stringField(op, 'path', kind);
      const [dst, dstKey] = locate(root.doc, path, `move operation does not apply: doc is missing destination path: ${path}`);
      add(dst, dstKey, value ?? null, path);
      return;
    }
    case 'copy': {
      const from = stringField(op, 'from', kind);
      const [src, srcKey] = locate(root.doc, from, `copy operation does not apply: doc is missing from path: ${from}`);
      const value = get(src, srcKey, from);
      const path = stringField(op, 'path', kind);
      const [dst, dstKey] = locate(root.doc, path, `copy operation does not apply: doc is missing destination path: ${path}`);
      // Copies can multiply a document; their total size is bounded.
      if (value !== undefined && value !== null) root.copied += Buffer.byteLength(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
      if (root.copied > root.maxCopyBytes) {
        throw new ApplyFailure(
          `Unable to complete the copy, the accumulated size increase of copy is ${root.copied}, exceeding the limit ${root.maxCopyBytes}`,
        );
      }
      add(dst, dstKey, clone(value ?? null), path);
      return;
    }
    case 'test': {
      const path = stringField(op, 'path', kind);
      if (!Object.hasOwn(op, 'value')) throw new ApplyFailure(`testing value ${path} failed`);
      const expected = op.value;
      if (path === '') {
        if (!deepEqual(root.doc, expected)) throw new ApplyFailure(`testing value ${path} failed`);
        return;
      }
      const [con, key] = locate(root.doc, path, `test operation does not apply: is missing path: ${path}`);
      const actual = get(con, key, path);
      // Absent and null are the same for `test`.
      if (actual === undefined || actual === null) {
        if (expected === null) return;
        throw new ApplyFailure(`testing value ${path} failed`);
      }
      if (!deepEqual(actual, expected)) throw new ApplyFailure(`testing value ${path} failed`);
      return;
    }
    default:
      throw new ApplyFailure(`Unexpected kind: ${kind}`);
  }
}

function decodeToken(token: string): string {
  return token.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~'));
}

/** The container holding the path's last token, and that token. */
function locate(doc: unknown, path: string, missing: string): [Container, string] {
  const parts = path.split('/');
  if (parts.length < 2) throw new ApplyFailure(missing);
  let cur: unknown = doc;
  for (const raw of parts.slice(1, -1)) {
    if (!isPlainObject(cur) && !Array.isArray(cur)) throw new ApplyFailure(missing);
    let next: unknown;
    try {
      next = get(cur, decodeToken(raw), path);
    } catch {
      throw new ApplyFailure(missing);
    }
    if (next === undefined || next === null) throw new ApplyFailure(missing);
    cur = next;
  }
  if (!isPlainObject(cur) && !Array.isArray(cur)) throw new ApplyFailure(missing);
  return [cur, decodeToken(parts[parts.length - 1])];
}

/** Go's strconv.Atoi: optional sign, decimal digits only. */
function parseIndex(key: string): number | undefined {
  if (!/^[+-]?\d+$/.test(key)) return undefined;
  const n = Number(key);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** An index into an array of `size` slots; negative counts from the end. */
function arrayIndex(key: string, size: number, path: string): number {
  const idx = parseIndex(key);
  if (idx === undefined) throw new ApplyFailure(`value was not a proper array index: '${key}' (path '${path}')`);
  if (idx >= size || idx < -size) throw new ApplyFailure(`Unable to access invalid index: ${idx}`);
  return idx < 0 ? idx + size : idx;
}

function get(con: Container, key: string, path: string): unknown {
  if (Array.isArray(con)) return con[arrayIndex(key, con.length, path)];
  return Object.hasOwn(con, key) ? con[key] : undefined;
}

function add(con: Container, key: string, value: unknown, path: string): void {
  if (!Array.isArray(con)) {
    setOwn(con, key, value);
    return;
  }
  if (key === '-') {
    con.push(value);
    return;
  }
  con.splice(arrayIndex(key, con.length + 1, path), 0, value);
}

function remove(con: Container, key: string, path: string): void {
  if (Array.isArray(con)) {
    con.splice(arrayIndex(key, con.length, path), 1);
    return;
  }
  if (!Object.hasOwn(con, key)) throw new ApplyFailure(`Unable to remove nonexistent key: ${key} (path '${path}')`);
  delete con[key];
}
