// The opaque continue token of paged lists: base64url of a small JSON document naming the
// snapshot revision and the next key (relative to the resource prefix), in the shape
// Kubernetes clients have seen (`{"v":"meta.<domain>/v1","rv":N,"start":"..."}`).
import { badRequest } from '../apimachinery/errors.js';
import { isPlainObject } from '../apimachinery/types.js';
import { metaGroup } from '../naming/index.js';

export interface ContinueToken {
  revision: number;
  /** The first key of the next page, relative to the resource prefix. */
  start: string;
}

export function encodeContinue(token: ContinueToken): string {
  const doc = { v: `${metaGroup()}/v1`, rv: token.revision, start: token.start };
  return Buffer.from(JSON.stringify(doc), 'utf8').toString('base64url');
}

/** Decodes a token; malformed ones are 400 `invalid continue token: ...`. */
export function decodeContinue(value: string): ContinueToken {
  const invalid = (detail: string) => badRequest(`invalid continue token: continue key is not valid${detail}`);
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(value.replace(/=+$/, ''), 'base64url').toString('utf8'));
  } catch (e) {
    throw invalid(`: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!isPlainObject(doc)) throw invalid('');
  if (doc.v !== `${metaGroup()}/v1`) throw invalid(`: server does not recognize this encoded version ${JSON.stringify(doc.v)}`);
  if (typeof doc.rv !== 'number' || !Number.isSafeInteger(doc.rv) || doc.rv <= 0) {
    throw invalid(`: incorrect encoded start resourceVersion (version ${metaGroup()}/v1)`);
  }
  if (typeof doc.start !== 'string' || doc.start === '') {
    throw invalid(`: encoded start key empty (version ${metaGroup()}/v1)`);
  }
  // A token may only move forward inside the resource: no path tricks out of the prefix.
  if (doc.start.startsWith('/') || doc.start.split('/').some((s) => s === '..' || s === '.')) throw invalid('');
  return { revision: doc.rv, start: doc.start };
}
