// The binary serializer as content negotiation uses it: the protobuf codec's serializer,
// offered only for kinds that have a binary form, and told the kind a request addresses so
// that an envelope whose type fields are empty still decodes.
import { ApiError } from '../apimachinery/errors.js';
import { canEncode, createProtobufSerializer, decodeObject, isProtobufPayload } from './protobuf/index.js';
import { MalformedBodyError, type Serializer } from './serializer.js';

/** Create it after the flavor is chosen (its media type is the flavor's). */
export function binarySerializer(): Serializer {
  return {
    ...createProtobufSerializer(),
    canEncode,
    decode(body, expected) {
      try {
        return decodeObject(body, expected);
      } catch (e) {
        // Without the prefix no type was read: Kubernetes reports such a body as unrecognized.
        if (e instanceof ApiError && !isProtobufPayload(body)) throw new MalformedBodyError(e.message);
        throw e;
      }
    },
  };
}
