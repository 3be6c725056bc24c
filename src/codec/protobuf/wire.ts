// Protocol buffer wire primitives: a growable writer and a bounds-checked reader over
// varints, fixed 64-bit values and length-delimited fields. Knows nothing of the API types.

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
const WIRE_FIXED32 = 5;

/** A malformed or truncated message; the envelope layer turns it into a 400 Status. */
export class WireError extends Error {}

const TWO_32 = 4294967296;

/**
 * Writes into one reused buffer that grows on demand; `finish()` copies the result out.
 * Nested messages reserve one length byte and move their content when the length needs
 * more, which costs one copy per large submessage instead of a sizing pass over the tree.
 */
export class Writer {
  buf: Buffer;
  pos = 0;

  constructor(initialSize = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initialSize);
  }

  reset(): void {
    this.pos = 0;
  }

  ensure(extra: number): void {
    const need = this.pos + extra;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /**
   * A copy of what was written, in memory of its own: stored values live long, and a slice
   * of Node's shared buffer pool would keep the whole pool alive.
   */
  finish(): Uint8Array {
    const out = Buffer.allocUnsafeSlow(this.pos);
    this.buf.copy(out, 0, 0, this.pos);
    return out;
  }

  byte(b: number): void {
    if (this.pos >= this.buf.length) this.ensure(1);
    this.buf[this.pos++] = b;
  }

  /** A non-negative integer below 2^53 as a varint. */
  uvarint(v: number): void {
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    if (v < 0x80) {
      buf[pos++] = v;
      this.pos = pos;
      return;
    }
    while (v > 0x7fffffff) {
      buf[pos++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    while (v > 0x7f) {
      buf[pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[pos++] = v;
    this.pos = pos;
  }

  /** A signed integer as proto `int32`/`int64` write it: negatives take ten bytes. */
  svarint(v: number | bigint): void {
    if (typeof v === 'bigint') {
      this.bigVarint(v);
      return;
    }
    if (v >= 0) {
      this.uvarint(v);
      return;
    }
    // Two's complement over 64 bits, split in halves to stay exact.
    let hi = Math.floor(v / TWO_32);
    let lo = v - hi * TWO_32;
    hi = hi >>> 0;
    lo = lo >>> 0;
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < 9; i++) {
      buf[pos++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi = hi >>> 7;
    }
    buf[pos++] = lo & 0x01;
    this.pos = pos;
  }

  /** An int64 beyond 2^53, exactly: its 64-bit two's complement, seven bits a byte. */
  private bigVarint(v: bigint): void {
    let u = BigInt.asUintN(64, v);
    this.ensure(10);
    while (u > 0x7fn) {
      this.buf[this.pos++] = Number(u & 0x7fn) | 0x80;
      u >>= 7n;
    }
    this.buf[this.pos++] = Number(u);
  }

  double(v: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }

  /** Length-prefixed UTF-8. */
  string(s: string): void {
    const n = s.length;
    if (n < 0x80) {
      // Short strings: copy ASCII directly; fall back on the first other character.
      this.ensure(n + 1);
      const buf = this.buf;
      const start = this.pos + 1;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[start + i] = c;
      }
      if (i === n) {
        buf[this.pos] = n;
        this.pos = start + n;
        return;
      }
    }
    const len = Buffer.byteLength(s, 'utf8');
    this.uvarint(len);
    this.ensure(len);
    this.buf.write(s, this.pos, len, 'utf8');
    this.pos += len;
  }

  bytes(b: Uint8Array): void {
    this.uvarint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Starts a length-delimited field's content; pass the result to `endLength`. */
  beginLength(): number {
    this.ensure(1);
    return ++this.pos;
  }

  endLength(start: number): void {
    const len = this.pos - start;
    if (len < 0x80) {
      this.buf[start - 1] = len;
      return;
    }
    let extra = 1;
    for (let v = len >>> 14; v > 0; v >>>= 7) extra++;
    this.ensure(extra);
    this.buf.copyWithin(start + extra, start, this.pos);
    let p = start - 1;
    let v = len;
    while (v > 0x7f) {
      this.buf[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[p] = v;
    this.pos += extra;
  }
}

/** Reads a message; every read checks bounds so truncated input fails cleanly. */
export class Reader {
  pos: number;

  /** Where the message being read ends; nested reads narrow it and restore it. */
  end: number;

  /** The same bytes as a Buffer, for its native text decoding. */
  private readonly text: SlicingBuffer;

  constructor(
    readonly buf: Uint8Array,
    start = 0,
    end = buf.length,
  ) {
    this.pos = start;
    this.end = end;
    this.text = (Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength)) as SlicingBuffer;
  }

  /** Reads a length prefix; returns where that content ends, leaving `pos` at its start. */
  lengthEnd(): number {
    const len = this.uvarint();
    if (len > this.end - this.pos) throw new WireError('unexpected EOF');
    return this.pos + len;
  }

  uvarint(): number {
    const buf = this.buf;
    let pos = this.pos;
    if (pos < this.end) {
      const b = buf[pos];
      if (b < 0x80) {
        this.pos = pos + 1;
        return b;
      }
    }
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (pos >= this.end) throw new WireError('unexpected EOF');
      const b = buf[pos++];
      result += (b & 0x7f) * mul;
      if (b < 0x80) {
        this.pos = pos;
        return result;
      }
      mul *= 128;
    }
    throw new WireError('integer overflow');
  }

  /**
   * A varint read as a signed 64-bit integer, exactly: a `bigint` when beyond 2^53 (as
   * JSON bodies decode such integers), a number otherwise.
   */
  int64Exact(): number | bigint {
    const start = this.pos;
    const v = this.uvarint();
    if (v <= Number.MAX_SAFE_INTEGER) return v;
    let big = 0n;
    for (let i = this.pos - 1; i >= start; i--) big = (big << 7n) | BigInt(this.buf[i]! & 0x7f);
    big = BigInt.asIntN(64, big);
    const n = Number(big);
    return Number.isSafeInteger(n) ? n : big;
  }

  /** A varint read as a signed 64-bit integer (precision beyond 2^53 is lost). */
  int64(): number {
    const start = this.pos;
    const v = this.uvarint();
    if (this.pos - start < 10) return v;
    // Ten bytes: a negative number in two's complement.
    let lo = 0;
    let hi = 0;
    const buf = this.buf;
    for (let i = 0; i < 10; i++) {
      const b = buf[start + i] & 0x7f;
      if (i < 4) lo |= b << (7 * i);
      else if (i === 4) {
        lo |= (b & 0x0f) << 28;
        hi |= b >> 4;
      } else hi |= b << (7 * i - 32);
    }
    lo >>>= 0;
    hi |= 0;
    return hi * TWO_32 + lo;
  }

  /** A varint truncated to 32 bits, as proto `int32` reads it. */
  int32(): number {
    const start = this.pos;
    const v = this.uvarint();
    if (v <= 0x7fffffff) return v;
    const buf = this.buf;
    let lo = 0;
    for (let i = 0; i < 5; i++) {
      const b = buf[start + i];
      lo |= i < 4 ? (b & 0x7f) << (7 * i) : (b & 0x0f) << 28;
      if (b < 0x80) break;
    }
    return lo | 0;
  }

  bool(): boolean {
    return this.uvarint() !== 0;
  }

  double(): number {
    if (this.pos + 8 > this.end) throw new WireError('unexpected EOF');
    const v = Buffer.from(this.buf.buffer, this.buf.byteOffset + this.pos, 8).readDoubleLE(0);
    this.pos += 8;
    return v;
  }

  /** The bounds of a length-delimited field's content; advances past it. */
  length(): number {
    const len = this.uvarint();
    const start = this.pos;
    if (len > this.end - start) throw new WireError('unexpected EOF');
    this.pos = start + len;
    return start;
  }

  string(): string {
    const len = this.uvarint();
    const start = this.pos;
    const end = start + len;
    if (len > this.end - start) throw new WireError('unexpected EOF');
    this.pos = end;
    return HAS_UTF8_SLICE ? this.text.utf8Slice(start, end) : this.text.toString('utf8', start, end);
  }

  bytes(): Uint8Array {
    const start = this.length();
    return this.buf.slice(start, this.pos);
  }

  skip(wireType: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.uvarint();
        return;
      case WIRE_FIXED64:
        this.advance(8);
        return;
      case WIRE_BYTES:
        this.length();
        return;
      case WIRE_FIXED32:
        this.advance(4);
        return;
      case 3: {
        // A proto2 group: skip fields up to the matching end-group marker. Groups nest;
        // counted here rather than recursed into, so nesting cannot exhaust the stack.
        let depth = 1;
        for (;;) {
          if (this.pos >= this.end) throw new WireError('unexpected EOF');
          const tag = this.uvarint();
          const wt = tag & 7;
          if (wt === 4) {
            if (--depth === 0) return;
          } else if (wt === 3) {
            if (++depth > MAX_GROUP_DEPTH) throw new WireError(`the object nesting depth exceeds the limit of ${MAX_GROUP_DEPTH}`);
          } else this.skip(wt);
        }
      }
      default:
        throw new WireError(`illegal wireType ${wireType}`);
    }
  }

  private advance(n: number): void {
    if (this.pos + n > this.end) throw new WireError('unexpected EOF');
    this.pos += n;
  }
}

/** Nesting bound for unknown groups, the same as for messages. */
const MAX_GROUP_DEPTH = 100;

/**
 * Node's own UTF-8 slicer, called without the argument handling of `toString` (which costs
 * as much as the decoding for the short strings objects are made of). Checked once.
 */
type SlicingBuffer = Buffer & { utf8Slice(start: number, end: number): string };
const HAS_UTF8_SLICE = typeof (Buffer.prototype as Partial<SlicingBuffer>).utf8Slice === 'function';

function utf8Text(buf: Buffer, start: number, end: number): string {
  return HAS_UTF8_SLICE ? (buf as SlicingBuffer).utf8Slice(start, end) : buf.toString('utf8', start, end);
}

/** UTF-8 text of a byte range. */
export function utf8(buf: Uint8Array, start: number, end: number): string {
  return utf8Text(Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength), start, end);
}
