// The bounds every decoder enforces before it builds anything recursively: a hostile body
// must get a 400, never a stack overflow or an out-of-memory abort of the process.
import { ApiError } from '../apimachinery/errors.js';

/**
 * Nesting bound for request bodies: deeper documents are rejected before any use. Go's JSON
 * decoder allows 10,000 levels, but objects this server keeps are walked recursively
 * (schemas, pruning, managed fields), which is safe only far below that. A JSON body beyond
 * the bound is refused in the words Go uses for one beyond its own (`serializer.ts`).
 */
export const MAX_NESTING_DEPTH = 100;

/** A document nested beyond the bound (a 400, as every decoding failure). */
export class NestingTooDeepError extends ApiError {
  constructor(readonly limit: number) {
    super(400, 'BadRequest', `the object nesting depth exceeds the limit of ${limit}`);
  }
}

export function tooDeep(limit = MAX_NESTING_DEPTH): Error {
  return new NestingTooDeepError(limit);
}

/**
 * A fast pre-check of bracket depth, so that no parser sees absurdly deep input. For YAML
 * the count is conservative (single-quoted scalars are skipped too; brackets in plain
 * scalars count), which only ever rejects documents no client sends.
 */
export function checkRawBracketDepth(s: string, yaml = false, limit = MAX_NESTING_DEPTH): void {
  let depth = 0;
  let quote = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (quote !== 0) {
      if (c === 92 /* \ */ && quote === 34) i++;
      else if (c === quote) quote = 0;
      continue;
    }
    if (c === 34 /* " */ || (yaml && c === 39) /* ' */) quote = c;
    else if (c === 123 || c === 91) {
      if (++depth > limit) throw tooDeep(limit);
    } else if (c === 125 || c === 93) depth--;
  }
}

/** Block-style YAML nests by indentation: bound the indentation the parser has to track. */
export function checkIndentDepth(s: string, limit = 4 * MAX_NESTING_DEPTH): void {
  let lineStart = true;
  let indent = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 10) {
      lineStart = true;
      indent = 0;
    } else if (lineStart && (c === 32 || c === 45 /* - */)) {
      if (++indent > limit) throw tooDeep();
    } else lineStart = false;
  }
}
