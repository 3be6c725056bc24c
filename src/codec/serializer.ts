// The wire formats objects are read from and written to. JSON and YAML are built in; the
// binary envelope codec registers itself into the same slot when it is available.
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { ApiError, badRequest } from '../apimachinery/errors.js';
import type { GroupVersionKind, KubeObject } from '../apimachinery/types.js';
import { goJsonSyntaxError } from './go-json.js';

export interface Serializer {
  /** The canonical media type this serializer answers with. */
  mediaType: string;
  /** Other names it accepts on input and in Accept. */
  aliases: string[];
  /** Whether watch events can be framed in it. */
  streaming: boolean;
  encode(obj: unknown, opts: { pretty: boolean }): Uint8Array;
  /**
   * Decodes a request body; throws ApiError 400 on malformed input (MalformedBodyError when
   * the body is not well-formed in this format). `expected` is the kind the request
   * addresses, for formats whose documents may leave their type fields empty.
   */
  decode(body: Uint8Array, expected?: GroupVersionKind): unknown;
  /** Whether objects of a kind have a form in this format; absent when every kind has. */
  canEncode?(gvk: GroupVersionKind): boolean;
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

/**
 * A body that is not well-formed in its format: a 400 whose message is the decoder's own
 * text. `objectMessage` is what Kubernetes reports when the body was to be an object (its
 * JSON decoder reads the type fields first and words the failure after that step).
 */
export class MalformedBodyError extends ApiError {
  readonly objectMessage: string;

  constructor(message: string, objectMessage = message) {
    super(400, 'BadRequest', message);
    this.objectMessage = objectMessage;
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });
// JSON text as Go reads it: a byte order mark is not whitespace, and bytes that are not
// UTF-8 inside strings become U+FFFD (elsewhere they are syntax errors either way).
const jsonDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

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

/** Parses JSON; a malformed document is a MalformedBodyError in Go's words. */
export function parseJson(body: Uint8Array): unknown {
  const s = jsonDecoder.decode(body);
  checkRawBracketDepth(s);
  try {
    return JSON.parse(s);
  } catch {
    const message = goJsonSyntaxError(body) ?? 'unexpected end of JSON input';
    throw new MalformedBodyError(message, `couldn't get version/kind; json parse error: ${message}`);
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
      throw new MalformedBodyError(`error converting YAML to JSON: ${e instanceof Error ? e.message : String(e)}`);
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
