// Where the binary encoding plugs into the rest of the server: a serializer for content
// negotiation (request bodies, responses, watch streams) and a storage codec chosen by
// `--storage-media-type` that reads values written in either encoding.
import { badRequest } from '../../apimachinery/errors.js';
import { FlagError, type FlagDefinition, type ParsedFlags } from '../../apimachinery/flags.js';
import { isPlainObject, parseApiVersion, type KubeObject } from '../../apimachinery/types.js';
import { protobufMediaType } from '../../naming/index.js';
import { jsonCodec, type ObjectCodec } from '../storage.js';
import type { Serializer } from '../serializer.js';
import { canEncode, encodeObject, isProtobufPayload } from './envelope.js';
import { decodeObject } from './decode.js';
import { encodeWatchEvent } from './watch.js';

/**
 * The binary serializer of the running flavor (create it after the flavor is chosen). Each
 * flavor serves its own media type name only, as kube-apiserver serves only its own: the
 * other flavor's name is refused (406, 415) like any unknown type, though the bytes are the same.
 */
export function createProtobufSerializer(): Serializer {
  return {
    mediaType: protobufMediaType(),
    streaming: true,
    encode(obj) {
      if (!isPlainObject(obj)) throw badRequest('only objects have a binary form');
      return encodeObject(obj as KubeObject);
    },
    decode(body) {
      return decodeObject(body);
    },
    encodeWatchEvent(event) {
      if (!isPlainObject(event.object)) throw badRequest('only objects have a binary form');
      return encodeWatchEvent({ type: event.type, object: event.object as KubeObject });
    },
  };
}

export const STORAGE_MEDIA_TYPE_FLAG = 'storage-media-type';

export const protobufFlagDefinitions: FlagDefinition[] = [
  {
    name: STORAGE_MEDIA_TYPE_FLAG,
    type: 'string',
    default: 'application/json',
    usage: 'The media type objects are stored in: application/json or the binary type of the flavor. Values written in either are always readable.',
  },
];

/**
 * A storage codec writing `mediaType` and reading both encodings (the stored prefix tells
 * them apart), so a server can switch without migrating. Kinds without a binary form
 * (custom resources) are stored as JSON either way.
 */
export function storageCodec(mediaType: string): ObjectCodec {
  const binary = mediaType === protobufMediaType();
  if (!binary && mediaType !== 'application/json') {
    throw new FlagError(
      `--${STORAGE_MEDIA_TYPE_FLAG}: unsupported media type "${mediaType}": supported values: "application/json", "${protobufMediaType()}"`,
    );
  }
  return {
    encode(obj) {
      if (binary) {
        const gvk = { ...parseApiVersion(obj.apiVersion ?? ''), kind: obj.kind ?? '' };
        if (canEncode(gvk)) return encodeObject(obj, gvk);
      }
      return jsonCodec.encode(obj);
    },
    decode(bytes) {
      return isProtobufPayload(bytes) ? decodeObject(bytes) : jsonCodec.decode(bytes);
    },
    // Only JSON has a bound; the binary encoding is measured by encoding.
    ...(binary ? {} : { sizeBound: jsonCodec.sizeBound }),
  };
}

/** The storage codec the flags ask for. */
export function storageCodecFromFlags(flags: ParsedFlags): ObjectCodec {
  return storageCodec(flags.string(STORAGE_MEDIA_TYPE_FLAG) ?? 'application/json');
}
