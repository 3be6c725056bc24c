// A minimal protobuf (proto3) writer: enough to encode the OpenAPI v2 document message.
// Messages are built bottom-up: each nested message is encoded to bytes first and then
// written as a length-delimited field of its parent.

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_BYTES = 2;

export class ProtoWriter {
  private chunks: Uint8Array[] = [];
  private scratch: number[] = [];
  private size = 0;

  private flushScratch(): void {
    if (this.scratch.length === 0) return;
    const b = Uint8Array.from(this.scratch);
    this.chunks.push(b);
    this.size += b.length;
    this.scratch = [];
  }

  private varint(value: number | bigint): void {
    if (typeof value === 'number' && value >= 0 && value < 0x80000000) {
      let n = value;
      while (n >= 0x80) {
        this.scratch.push((n & 0x7f) | 0x80);
        n >>>= 7;
      }
      this.scratch.push(n);
      return;
    }
    let v = BigInt.asUintN(64, BigInt(value));
    while (v >= 0x80n) {
      this.scratch.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.scratch.push(Number(v));
  }

  private tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  private raw(bytes: Uint8Array): void {
    this.flushScratch();
    this.chunks.push(bytes);
    this.size += bytes.length;
  }

  /** Proto3 leaves default values (empty string, false, 0) out of the encoding. */
  string(field: number, value: string | undefined): this {
    if (!value) return this;
    return this.bytes(field, Buffer.from(value, 'utf8'));
  }

  strings(field: number, values: readonly string[] | undefined): this {
    for (const v of values ?? []) this.bytes(field, Buffer.from(v, 'utf8'));
    return this;
  }

  bool(field: number, value: boolean | undefined): this {
    if (!value) return this;
    this.tag(field, WIRE_VARINT);
    this.varint(1);
    return this;
  }

  int64(field: number, value: number | undefined): this {
    if (!value) return this;
    this.tag(field, WIRE_VARINT);
    this.varint(value);
    return this;
  }

  double(field: number, value: number | undefined): this {
    if (!value) return this;
    this.tag(field, WIRE_FIXED64);
    const b = Buffer.alloc(8);
    b.writeDoubleLE(value);
    this.raw(b);
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.tag(field, WIRE_BYTES);
    this.varint(value.length);
    this.raw(value);
    return this;
  }

  /** A nested message, written even when empty (presence matters for oneofs). */
  message(field: number, encoded: Uint8Array | undefined): this {
    if (encoded === undefined) return this;
    return this.bytes(field, encoded);
  }

  finish(): Uint8Array {
    this.flushScratch();
    return Buffer.concat(this.chunks, this.size);
  }
}
