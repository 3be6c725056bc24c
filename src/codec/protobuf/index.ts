// The binary (protobuf) encoding of the built-in kinds: the envelope codec, watch framing,
// and the adapters that plug it into content negotiation and storage.
export { encodeObject, isProtobufPayload, canEncode, PROTOBUF_PREFIX } from './envelope.js';
export { decodeObject } from './decode.js';
export { encodeWatchEvent, decodeWatchEventMessage, WatchFrameReader } from './watch.js';
export {
  createProtobufSerializer,
  storageCodec,
  storageCodecFromFlags,
  protobufFlagDefinitions,
  STORAGE_MEDIA_TYPE_FLAG,
} from './adapters.js';
