// Watch streams in the binary form: each event is one frame, a 4-byte big-endian length and
// then a `WatchEvent` message {type = 1, object = 2 (RawExtension {raw = 1})} written
// without prefix or envelope; `raw` holds the object in the full binary envelope.
import { badRequest } from '../../apimachinery/errors.js';
import type { GroupVersionKind, KubeObject } from '../../apimachinery/types.js';
import { writeEnvelope } from './envelope.js';
import { decodeObject } from './decode.js';
import { Reader, Writer } from './wire.js';

let writer = new Writer();
const WRITER_KEEP_BYTES = 8 * 1024 * 1024;

/** One framed watch event. `gvk` defaults to the object's own `apiVersion` and `kind`. */
export function encodeWatchEvent(event: { type: string; object: KubeObject }, gvk?: GroupVersionKind): Uint8Array {
  const w = writer;
  w.reset();
  w.ensure(4);
  w.pos = 4;
  w.byte(0x0a);
  w.string(event.type);
  w.byte(0x12);
  const object = w.beginLength();
  w.byte(0x0a);
  const raw = w.beginLength();
  writeEnvelope(w, event.object, gvk);
  w.endLength(raw);
  w.endLength(object);
  w.buf.writeUInt32BE(w.pos - 4, 0);
  const out = w.finish();
  if (w.buf.length > WRITER_KEEP_BYTES) writer = new Writer();
  return out;
}

/** Reads one frame's `WatchEvent` message (without the length prefix). */
export function decodeWatchEventMessage(bytes: Uint8Array): { type: string; object: KubeObject } {
  const r = new Reader(bytes);
  let type = '';
  let raw: Uint8Array | undefined;
  try {
    while (r.pos < r.end) {
      const tag = r.uvarint();
      if (tag === 0x0a) type = r.string();
      else if (tag === 0x12) {
        const end = r.lengthEnd();
        while (r.pos < end) {
          const t = r.uvarint();
          if (t === 0x0a) raw = r.bytes();
          else r.skip(t & 7);
        }
      } else r.skip(tag & 7);
    }
  } catch (e) {
    throw badRequest(`malformed watch event: ${(e as Error).message}`);
  }
  if (!raw) throw badRequest('watch event without an object');
  return { type, object: decodeObject(raw) };
}

/**
 * Splits a byte stream into watch events: feed chunks as they arrive, take the events that
 * are complete. Frames larger than `maxFrameBytes` end the stream with an error.
 */
export class WatchFrameReader {
  private pending: Uint8Array = new Uint8Array(0);

  constructor(private readonly maxFrameBytes = 64 * 1024 * 1024) {}

  push(chunk: Uint8Array): { type: string; object: KubeObject }[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const events: { type: string; object: KubeObject }[] = [];
    let pos = 0;
    const buf = this.pending;
    while (buf.length - pos >= 4) {
      const len = ((buf[pos] << 24) >>> 0) + (buf[pos + 1] << 16) + (buf[pos + 2] << 8) + buf[pos + 3];
      if (len > this.maxFrameBytes) throw badRequest(`watch frame of ${len} bytes exceeds the limit of ${this.maxFrameBytes}`);
      if (buf.length - pos - 4 < len) break;
      events.push(decodeWatchEventMessage(buf.subarray(pos + 4, pos + 4 + len)));
      pos += 4 + len;
    }
    this.pending = buf.subarray(pos);
    return events;
  }

  /** Bytes of an incomplete frame still waiting for the rest. */
  get buffered(): number {
    return this.pending.length;
  }
}
