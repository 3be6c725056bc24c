// The wire formats objects are read from and written to. JSON and YAML are built in; the
// binary envelope codec registers itself into the same slot when it is available.
import { stringify as stringifyYaml } from 'yaml';
import { ApiError, badRequest } from '../apimachinery/errors.js';
import type { GroupVersionKind, KubeObject } from '../apimachinery/types.js';
import { inGoOrder } from './field-order.js';
import { goJsonSyntaxError } from './go-json.js';
import { parseJsonText, stringifyJson } from './json.js';
import { NestingTooDeepError } from './limits.js';
import { readYamlAsync } from './yaml-pool.js';
import { readYaml, YamlSyntaxError } from './yaml.js';

export interface Serializer {
  /**
   * The one media type this serializer reads and answers with. There are no aliases:
   * kube-apiserver serves each format under one name and refuses others (406, 415).
   */
  mediaType: string;
  /** Whether watch events can be framed in it. */
  streaming: boolean;
  encode(obj: unknown, opts: { pretty: boolean }): Uint8Array;
  /**
   * Decodes a request body; throws ApiError 400 on malformed input (MalformedBodyError when
   * the body is not well-formed in this format). `expected` is the kind the request
   * addresses, for formats whose documents may leave their type fields empty.
   */
  decode(body: Uint8Array, expected?: GroupVersionKind): unknown;
  /**
   * The same, for formats whose large documents are read off the event loop (YAML); absent
   * when `decode` is cheap enough to call on it.
   */
  decodeAsync?(body: Uint8Array, expected?: GroupVersionKind): Promise<unknown>;
  /** Whether objects of a kind have a form in this format; absent when every kind has. */
  canEncode?(gvk: GroupVersionKind): boolean;
  /** Frames one watch event on a stream (binary codecs length-prefix it); JSON uses lines. */
  encodeWatchEvent?(event: { type: string; object: unknown }): Uint8Array;
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
 * Parses JSON; a malformed document is a MalformedBodyError in Go's words. So is one nested
 * beyond the bound: Go's scanner refuses a container opened past its depth limit with
 * `invalid character '[' exceeded max depth` (unless a syntax error comes first), and this
 * reader does the same at its own, lower limit.
 */
export function parseJson(body: Uint8Array): unknown {
  const s = jsonDecoder.decode(body);
  try {
    return parseJsonText(s);
  } catch (e) {
    const deep = e instanceof NestingTooDeepError;
    if (!(e instanceof SyntaxError) && !deep) throw e;
    const message = goJsonSyntaxError(body, deep ? e.limit : undefined);
    // The bracket count saw a depth the scanner does not (never expected): keep the bound's own refusal.
    if (message === undefined && deep) throw e;
    throw new MalformedBodyError(message ?? 'unexpected end of JSON input', `couldn't get version/kind; json parse error: ${message ?? 'unexpected end of JSON input'}`);
  }
}

export const jsonSerializer: Serializer = {
  mediaType: 'application/json',
  streaming: true,
  encode(obj, { pretty }) {
    return encoder.encode(stringifyJson(inGoOrder(obj), pretty ? 2 : undefined) + '\n');
  },
  decode: parseJson,
};

/** A YAML document that is not well-formed is a MalformedBodyError in Kubernetes' words. */
function yamlValue(read: () => unknown): unknown {
  try {
    return read();
  } catch (e) {
    if (e instanceof YamlSyntaxError) throw new MalformedBodyError(`error converting YAML to JSON: ${e.message}`);
    throw e;
  }
}

export const yamlSerializer: Serializer = {
  mediaType: 'application/yaml',
  streaming: false,
  // Kubernetes writes YAML by converting its JSON: Go's omissions apply, and the keys of
  // every mapping come out sorted.
  encode(obj) {
    return encoder.encode(stringifyYaml(inGoOrder(obj), { aliasDuplicateObjects: false, lineWidth: 0, logLevel: 'silent', sortMapEntries: true }));
  },
  decode(body) {
    return yamlValue(() => readYaml(text(body)));
  },
  async decodeAsync(body) {
    let value: unknown;
    try {
      value = await readYamlAsync(text(body));
    } catch (e) {
      value = yamlValue(() => {
        throw e;
      });
    }
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
    return this.list.find((s) => s.mediaType === t);
  }

  mediaTypes(): string[] {
    return this.list.map((s) => s.mediaType);
  }
}

/** Decodes with the serializer's off-loop variant when it has one. */
export function decodeBody(serializer: Serializer, body: Uint8Array, expected?: GroupVersionKind): Promise<unknown> {
  return serializer.decodeAsync ? serializer.decodeAsync(body, expected) : Promise.resolve().then(() => serializer.decode(body, expected));
}

/** Convenience for handlers that only ever produce JSON (errors on streams, health). */
export function encodeJson(obj: KubeObject | Record<string, unknown>, pretty = false): Uint8Array {
  return jsonSerializer.encode(obj, { pretty });
}
