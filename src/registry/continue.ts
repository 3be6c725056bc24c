// The opaque continue token of paged lists: base64url of a small JSON document naming the
// snapshot revision and the next key (relative to the resource prefix), in the shape
// Kubernetes clients have seen (`{"v":"meta.<domain>/v1","rv":N,"start":"..."}`).
import { badRequest } from '../apimachinery/errors.js';
import { isPlainObject } from '../apimachinery/types.js';
import { metaGroup } from '../naming/index.js';
import { goQuoteByte } from '../codec/go-json.js';

/** The revision of a token that continues at the latest revision. */
export const LATEST_REVISION = -1;

export interface ContinueToken {
  /** The snapshot revision, or LATEST_REVISION. */
  revision: number;
  /** The first key of the next page, relative to the resource prefix. */
  start: string;
}

export function encodeContinue(token: ContinueToken): string {
  const doc = { v: `${metaGroup()}/v1`, rv: token.revision, start: token.start };
  return Buffer.from(JSON.stringify(doc), 'utf8').toString('base64url');
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Base64url without padding, strictly, with Go's message for the first bad byte. */
function decodeBase64Url(value: string): Buffer {
  const text = value.replace(/=+$/, '');
  if (!BASE64URL.test(text)) {
    const bad = [...text].findIndex((c) => !/[A-Za-z0-9_-]/.test(c));
    throw new Error(`illegal base64 data at input byte ${bad}`);
  }
  if (text.length % 4 === 1) throw new Error(`illegal base64 data at input byte ${text.length - 1}`);
  return Buffer.from(text, 'base64url');
}

const JSON_WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const VALUE_START = new Set([...'{["-0123456789tfn'].map((c) => c.charCodeAt(0)));

/** Parses the token's JSON; syntax errors read as Go's decoder words them, never as the runtime's. */
function parseTokenJson(bytes: Buffer): unknown {
  const first = bytes.findIndex((b) => !JSON_WHITESPACE.has(b));
  if (first < 0) throw new Error('unexpected end of JSON input');
  const b = bytes[first] ?? 0;
  if (!VALUE_START.has(b)) throw new Error(`invalid character ${goQuoteByte(b)} looking for beginning of value`);
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw new Error('unexpected end of JSON input');
  }
}

/** Go's path.Clean verdict: a start key must already be in clean form under the prefix. */
function isCleanKey(start: string): boolean {
  const key = start.startsWith('/') ? start : `/${start}`;
  if (key.length > 1 && key.endsWith('/')) return false;
  return !key.slice(1).split('/').some((s) => s === '' || s === '.' || s === '..');
}

/** Decodes a token; malformed ones are 400 `invalid continue token: ...` in Kubernetes' words. */
export function decodeContinue(value: string): ContinueToken {
  const invalid = (detail: string) => badRequest(`invalid continue token: continue key is not valid${detail}`);
  const version = `${metaGroup()}/v1`;
  let doc: unknown;
  try {
    doc = parseTokenJson(decodeBase64Url(value));
  } catch (e) {
    throw invalid(`: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!isPlainObject(doc)) {
    const kind = Array.isArray(doc) ? 'array' : doc === null ? 'null' : typeof doc === 'string' ? 'string' : typeof doc === 'boolean' ? 'bool' : 'number';
    if (doc !== null) throw invalid(`: json: cannot unmarshal ${kind} into Go value of type storage.continueToken`);
    doc = {};
  }
  const token = doc as Record<string, unknown>;
  const v = typeof token.v === 'string' ? token.v : '';
  if (v !== version) throw invalid(`: server does not recognize this encoded version ${v}`);
  // A negative revision continues at the latest one: the token a 410 for an expired
  // continue hands out so a client may finish the list, knowingly inconsistent.
  if (typeof token.rv !== 'number' || !Number.isSafeInteger(token.rv) || token.rv === 0) {
    throw invalid(`: incorrect encoded start resourceVersion (version ${version})`);
  }
  if (typeof token.start !== 'string' || token.start === '') {
    throw invalid(`: encoded start key empty (version ${version})`);
  }
  // A token may only move forward inside the resource: no path tricks out of the prefix.
  if (token.start.startsWith('/') || !isCleanKey(token.start)) throw invalid(`: ${token.start}`);
  return { revision: token.rv < 0 ? LATEST_REVISION : token.rv, start: token.start };
}
