// The wire formats objects are read from and written to. JSON and YAML are built in; the
// binary envelope codec registers itself into the same slot when it is available.
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { badRequest } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';

export interface Serializer {
  /** The canonical media type this serializer answers with. */
  mediaType: string;
  /** Other names it accepts on input and in Accept. */
  aliases: string[];
  /** Whether watch events can be framed in it. */
  streaming: boolean;
  encode(obj: unknown, opts: { pretty: boolean }): Uint8Array;
  /** Decodes a request body; throws ApiError 400 on malformed input. */
  decode(body: Uint8Array): unknown;
  /** Frames one watch event on a stream (binary codecs length-prefix it); JSON uses lines. */
  encodeWatchEvent?(event: { type: string; object: unknown }): Uint8Array;
}

/** Nesting bound for request bodies: deeper documents are rejected before any use. */
export const MAX_NESTING_DEPTH = 100;

export function checkDepth(value: unknown, limit = MAX_NESTING_DEPTH): void {
  // Iterative walk: a hostile body must not be able to overflow the call stack here.
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d >= limit) throw badRequest(`the object nesting depth exceeds the limit of ${limit}`);
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d + 1]);
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

function text(body: Uint8Array): string {
  try {
    return decoder.decode(body);
  } catch {
    throw badRequest('the request body is not valid UTF-8');
  }
}

/**
 * A fast pre-check of bracket depth, so that no parser sees absurdly deep input. For YAML
 * the count is conservative (single-quoted scalars are skipped too; brackets in plain
 * scalars count), which only ever rejects documents no client sends.
 */
function checkRawBracketDepth(s: string, yaml = false, limit = MAX_NESTING_DEPTH): void {
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
      if (++depth > limit) throw badRequest(`the object nesting depth exceeds the limit of ${limit}`);
    } else if (c === 125 || c === 93) depth--;
  }
}

/** Block-style YAML nests by indentation: bound the indentation the parser has to track. */
function checkIndentDepth(s: string, limit = 4 * MAX_NESTING_DEPTH): void {
  let lineStart = true;
  let indent = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 10) {
      lineStart = true;
      indent = 0;
    } else if (lineStart && (c === 32 || c === 45 /* - */)) {
      if (++indent > limit) throw badRequest(`the object nesting depth exceeds the limit of ${MAX_NESTING_DEPTH}`);
    } else lineStart = false;
  }
}

export function parseJson(body: Uint8Array): unknown {
  const s = text(body);
  checkRawBracketDepth(s);
  try {
    return JSON.parse(s);
  } catch (e) {
    throw badRequest(`error decoding JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export const jsonSerializer: Serializer = {
  mediaType: 'application/json',
  aliases: [],
  streaming: true,
  encode(obj, { pretty }) {
    return encoder.encode((pretty ? JSON.stringify(obj, null, 2) : JSON.stringify(obj)) + '\n');
  },
  decode: parseJson,
};

export const yamlSerializer: Serializer = {
  mediaType: 'application/yaml',
  aliases: ['application/x-yaml', 'text/yaml'],
  streaming: false,
  encode(obj) {
    return encoder.encode(stringifyYaml(obj, { aliasDuplicateObjects: false, lineWidth: 0 }));
  },
  decode(body) {
    const s = text(body);
    checkRawBracketDepth(s, true);
    checkIndentDepth(s);
    let value: unknown;
    try {
      // A small alias budget keeps "billion laughs" documents from expanding.
      value = parseYaml(s, { maxAliasCount: 100, uniqueKeys: false, strict: false });
    } catch (e) {
      throw badRequest(`error converting YAML to JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
    checkDepth(value);
    return value;
  },
};

/**
 * The serializers the server knows, the binary one added at start-up when it is available.
 * Order matters: it is the order of the "accepted media types" lists in error messages.
 */
export class SerializerSet {
  private readonly list: Serializer[] = [jsonSerializer, yamlSerializer];

  /** Registers the binary envelope codec (or any other) after JSON and YAML. */
  register(s: Serializer): void {
    this.list.splice(2, 0, s);
  }

  all(): readonly Serializer[] {
    return this.list;
  }

  byMediaType(type: string): Serializer | undefined {
    const t = type.toLowerCase();
    return this.list.find((s) => s.mediaType === t || s.aliases.includes(t));
  }

  mediaTypes(): string[] {
    return this.list.map((s) => s.mediaType);
  }
}

/** Convenience for handlers that only ever produce JSON (errors on streams, health). */
export function encodeJson(obj: KubeObject | Record<string, unknown>, pretty = false): Uint8Array {
  return jsonSerializer.encode(obj, { pretty });
}
