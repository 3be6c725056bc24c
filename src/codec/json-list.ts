// A list's JSON written piece by piece: the envelope up to the opening bracket of its items,
// the items in chunks as each is encoded, then the envelope's remainder. The bytes are those
// `jsonSerializer.encode` writes for the whole list (Go's field order and omissions, bigint
// integers, the same indentation), so a client cannot tell a streamed answer from a whole one.
import { randomBytes } from 'node:crypto';
import { setOwn } from '../apimachinery/own.js';
import { goOrderOfElement, inGoOrder } from './field-order.js';
import { stringifyJson } from './json.js';
import type { StoredElement, StoredSplice } from '../rest/index.js';

/** A list to stream: an envelope whose `key` holds `count` elements produced on demand. */
export interface StreamedList {
  envelope: Record<string, unknown>;
  /** The field holding the elements (`items`, a Table's `rows`). */
  key: string;
  count: number;
  /** The element at `i`, built when it is about to be written (so a Table row exists only while it is encoded). */
  element(i: number): unknown;
  /** The stored form of element `i`, when its compact JSON may be copied from it (see `storedCopy`). */
  stored?(i: number): StoredElement | undefined;
  /** Per stored item, how its answer is made of its bytes (learnt once per item; see `spliceOf`, `slicesOf`). */
  splices?: WeakMap<object, StoredSplice>;
}

export type { LazyItems, StoredElement, StoredSplice } from '../rest/index.js';

/** About how many bytes of JSON go out in one write (fewer, larger writes cost less on TLS). */
export const LIST_CHUNK_BYTES = 256 * 1024;

// Stands in for the elements while the envelope is encoded; random so no client text can hold it.
const PLACEHOLDER = `orch-list-items-${randomBytes(12).toString('hex')}`;
const QUOTED_PLACEHOLDER = JSON.stringify(PLACEHOLDER);

/**
 * The JSON of a list in chunks of about `chunkBytes`. Pulling the next chunk encodes it, so
 * the caller decides the pace; an element that cannot be encoded throws from that pull.
 */
export function* jsonListChunks(list: StreamedList, pretty: boolean, chunkBytes = LIST_CHUNK_BYTES): Generator<Buffer, void, undefined> {
  const indent = pretty ? 2 : undefined;
  if (list.count === 0) {
    // Nothing to stream; and a field Go omits when empty is left out as the whole encode leaves it.
    yield Buffer.from(stringifyJson(inGoOrder(withField(list.envelope, list.key, [])), indent) + '\n');
    return;
  }
  const text = stringifyJson(inGoOrder(withField(list.envelope, list.key, PLACEHOLDER)), indent) + '\n';
  const at = text.indexOf(QUOTED_PLACEHOLDER);
  if (at < 0) throw new Error(`the list field ${list.key} was not written`);
  const head = text.slice(0, at);
  const tail = text.slice(at + QUOTED_PLACEHOLDER.length);
  const order = goOrderOfElement(list.envelope, list.key);
  // Indented output puts each element on its own line, one step deeper than the field's line.
  const fieldIndent = pretty ? head.slice(head.lastIndexOf('\n') + 1).match(/^ */)![0] : '';
  // Elements are encoded a batch at a time (one stringify call per batch costs less than one
  // per element); the batch is sized from the elements seen so far to make one chunk.
  let batch = 16;
  const out = new ChunkBuilder(chunkBytes);
  const copies = !pretty && list.stored !== undefined && list.splices !== undefined ? { stored: list.stored.bind(list), splices: list.splices } : undefined;
  out.text(`${head}[`);
  const begin = out.total;
  yield* out.take(false);
  let slow: unknown[] = [];
  // Elements to encode wait in `slow` so that a run of them costs one stringify call.
  const flush = (): void => {
    if (slow.length === 0) return;
    if (out.total > begin) out.text(',');
    out.text(batchText(stringifyJson(slow, indent), fieldIndent, pretty));
    slow = [];
  };
  for (let i = 0; i < list.count; ) {
    const end = Math.min(list.count, i + batch);
    for (let j = i; j < end; j++) {
      if (copies === undefined || !copyStored(copies, j, out, begin, flush, () => stringifyJson(order(list.element(j))))) slow.push(order(list.element(j)));
    }
    flush();
    i = end;
    batch = Math.max(1, Math.min(4096, Math.floor(chunkBytes / ((out.total - begin) / i))));
    yield* out.take(false);
  }
  out.text(`${pretty ? `\n${fieldIndent}` : ''}]${tail}`);
  yield* out.take(true);
}

/**
 * Writes element `i` from its stored bytes when they are its compact JSON but for the
 * resource version, or its metadata's fields in another order, once that has been checked for
 * this item (the first time it is encoded, by comparing the encode with the bytes): the field
 * goes back where the encode had it, the fields in the encode's order. Answers false when the
 * element must be encoded (the bytes differ otherwise: another version, a converted or
 * reordered object, another storage codec).
 */
function copyStored(
  copies: { stored(i: number): StoredElement | undefined; splices: WeakMap<object, StoredSplice> },
  i: number,
  out: ChunkBuilder,
  begin: number,
  flush: () => void,
  encode: () => string,
): boolean {
  const s = copies.stored(i);
  if (s === undefined) return false;
  let known = copies.splices.get(s.item);
  let encoded: Buffer | undefined;
  if (known === undefined) {
    encoded = Buffer.from(encode());
    known = spliceOf(encoded, s);
    if (known === -1) known = slicesOf(encoded, s) ?? -1;
    copies.splices.set(s.item, known);
  }
  if (known === -1 && encoded === undefined) return false;
  flush();
  if (out.total > begin) out.text(',');
  if (encoded !== undefined) {
    out.bytes(encoded, 0, encoded.length);
    return true;
  }
  const field = `"resourceVersion":"${s.resourceVersion}"`;
  if (typeof known !== 'number') {
    writeSlices(out, s.bytes, known, field);
    return true;
  }
  const at = known >> 1;
  out.bytes(s.bytes, 0, at);
  out.text((known & 1) === 1 ? `${field},` : `,${field}`);
  out.bytes(s.bytes, at, s.bytes.length);
  return true;
}

/**
 * Bytes gathered into chunks of `size` bytes (the last one shorter), each a new buffer handed
 * out whole: a piece that does not fit is split across chunks, so buffers are filled, never
 * grown and copied.
 */
class ChunkBuilder {
  private buf: Buffer;
  private pos = 0;
  private readonly done: Buffer[] = [];
  /** Bytes written so far, all chunks together. */
  total = 0;

  constructor(private readonly size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  text(s: string): void {
    const n = Buffer.byteLength(s);
    if (this.pos + n > this.buf.length) {
      this.bytes(Buffer.from(s), 0, n);
      return;
    }
    this.buf.write(s, this.pos);
    this.pos += n;
    this.total += n;
  }

  bytes(b: Uint8Array, start: number, end: number): void {
    this.total += end - start;
    while (start < end) {
      const n = Math.min(end - start, this.buf.length - this.pos);
      this.buf.set(start === 0 && n === b.length ? b : b.subarray(start, start + n), this.pos);
      this.pos += n;
      start += n;
      if (this.pos === this.buf.length) {
        this.done.push(this.buf);
        this.buf = Buffer.allocUnsafe(this.size);
        this.pos = 0;
      }
    }
  }

  /** The chunks completed, then the one being gathered when it is full or `last`. */
  *take(last: boolean): Generator<Buffer, void, undefined> {
    while (this.done.length > 0) yield this.done.shift()!;
    if (this.pos === 0 || (!last && this.pos < this.size)) return;
    const chunk = this.buf.subarray(0, this.pos);
    this.buf = last ? Buffer.alloc(0) : Buffer.allocUnsafe(this.size);
    this.pos = 0;
    yield chunk;
  }
}

/**
 * Where the resource version goes into `s.bytes` to make `encoded` (the offset in bytes,
 * times two, plus one when a comma follows the field rather than precedes it), or -1 when
 * the bytes are not `encoded` without it.
 */
function spliceOf(encoded: Buffer, s: StoredElement): number {
  const field = `"resourceVersion":"${s.resourceVersion}"`;
  // Metadata is written before the object's other fields, and inside it the resource version
  // comes before labels and annotations, so the first occurrence is the field itself.
  const k = encoded.indexOf(field);
  if (k < 0) return -1;
  const commaAfter = encoded[k + field.length] === 0x2c;
  if (!commaAfter && encoded[k - 1] !== 0x2c) return -1;
  const start = commaAfter ? k : k - 1;
  const resume = start + field.length + 1;
  const bytes = Buffer.from(s.bytes.buffer, s.bytes.byteOffset, s.bytes.byteLength);
  if (bytes.length !== encoded.length - field.length - 1) return -1;
  if (Buffer.compare(encoded.subarray(0, start), bytes.subarray(0, start)) !== 0) return -1;
  if (Buffer.compare(encoded.subarray(resume), bytes.subarray(start)) !== 0) return -1;
  return start * 2 + (commaAfter ? 1 : 0);
}

// An object the server wrote keeps its metadata's fields in the order they were set, while
// the answer writes them in Go's order: the answer is then the stored bytes with the metadata's
// fields rearranged and the resource version among them. `slicesOf` learns that arrangement
// by cutting both texts at their fields (compact JSON: strings hold no raw quote or
// backslash byte of their own) and checks that the slices give the answer byte for byte.
// Its form: [metadata's `{` in the stored bytes, its `}`, then per answer field the start
// and end of the stored field, or -1, -1 for the resource version].

/** The slices of the stored bytes that make `encoded` with the resource version, or undefined. */
function slicesOf(encoded: Buffer, s: StoredElement): Int32Array | undefined {
  const bytes = Buffer.from(s.bytes.buffer, s.bytes.byteOffset, s.bytes.byteLength);
  const a = metadataOf(encoded);
  const b = metadataOf(bytes);
  if (a === undefined || b === undefined) return undefined;
  // Around the metadata, the bytes must be the answer's.
  if (a.open !== b.open || encoded.length - a.close !== bytes.length - b.close) return undefined;
  if (Buffer.compare(encoded.subarray(0, a.open), bytes.subarray(0, b.open)) !== 0) return undefined;
  if (Buffer.compare(encoded.subarray(a.close), bytes.subarray(b.close)) !== 0) return undefined;
  const storedFields = new Map<string, [number, number]>();
  for (const [start, end, keyEnd] of b.fields) storedFields.set(bytes.toString('latin1', start, keyEnd), [start, end]);
  const plan = new Int32Array(2 + 2 * a.fields.length);
  plan[0] = b.open;
  plan[1] = b.close;
  const field = `"resourceVersion":"${s.resourceVersion}"`;
  let k = 2;
  for (const [start, end, keyEnd] of a.fields) {
    const key = encoded.toString('latin1', start, keyEnd);
    if (key === '"resourceVersion"') {
      if (encoded.toString('latin1', start, end) !== field) return undefined;
      plan[k++] = -1;
      plan[k++] = -1;
      continue;
    }
    const from = storedFields.get(key);
    if (from === undefined) return undefined;
    plan[k++] = from[0];
    plan[k++] = from[1];
  }
  // The plan is kept only when it gives the answer exactly.
  const check = new ChunkBuilder(encoded.length + 1);
  writeSlices(check, s.bytes, plan, field);
  const [made] = [...check.take(true)];
  return made !== undefined && made.equals(encoded) ? plan : undefined;
}

function writeSlices(out: ChunkBuilder, bytes: Uint8Array, plan: Int32Array, field: string): void {
  out.bytes(bytes, 0, plan[0]! + 1);
  for (let k = 2; k < plan.length; k += 2) {
    if (k > 2) out.text(',');
    if (plan[k] === -1) out.text(field);
    else out.bytes(bytes, plan[k]!, plan[k + 1]!);
  }
  out.bytes(bytes, plan[1]!, bytes.length);
}

/** Where the top-level `metadata` object of compact JSON `text` opens and closes, and its fields. */
function metadataOf(text: Buffer): { open: number; close: number; fields: [number, number, number][] } | undefined {
  if (text[0] !== 0x7b) return undefined;
  const top = fieldsOf(text, 0);
  if (top === undefined) return undefined;
  for (const [start, end, keyEnd] of top.fields) {
    if (text.toString('latin1', start, keyEnd) !== '"metadata"') continue;
    const open = keyEnd + 1;
    if (text[open] !== 0x7b) return undefined;
    const inner = fieldsOf(text, open);
    if (inner === undefined || inner.end !== end) return undefined;
    return { open, close: end - 1, fields: inner.fields };
  }
  return undefined;
}

/**
 * The fields of the compact JSON object opening at `at`: each as its start, end and the end
 * of its key, and where the object ends; undefined for anything but compact JSON.
 */
function fieldsOf(text: Buffer, at: number): { fields: [number, number, number][]; end: number } | undefined {
  const fields: [number, number, number][] = [];
  let i = at + 1;
  if (text[i] === 0x7d) return { fields, end: i + 1 };
  for (;;) {
    if (text[i] !== 0x22) return undefined;
    const start = i;
    const keyEnd = skipString(text, i);
    if (keyEnd < 0 || text[keyEnd] !== 0x3a) return undefined;
    const end = skipValue(text, keyEnd + 1);
    if (end < 0) return undefined;
    fields.push([start, end, keyEnd]);
    i = end;
    if (text[i] === 0x2c) {
      i++;
      continue;
    }
    if (text[i] === 0x7d) return { fields, end: i + 1 };
    return undefined;
  }
}

/** The end of the string opening at `i`, or -1. */
function skipString(text: Buffer, i: number): number {
  for (i++; i < text.length; i++) {
    const c = text[i];
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  return -1;
}

/** The end of the value starting at `i`, or -1. */
function skipValue(text: Buffer, i: number): number {
  const c = text[i];
  if (c === 0x22) return skipString(text, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (; i < text.length; i++) {
      const d = text[i];
      if (d === 0x22) {
        i = skipString(text, i) - 1;
        if (i < 0) return -1;
      } else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        if (--depth === 0) return i + 1;
      }
    }
    return -1;
  }
  // A number, true, false or null: up to the next separator.
  for (; i < text.length; i++) {
    const d = text[i];
    if (d === 0x2c || d === 0x7d || d === 0x5d) return i;
  }
  return -1;
}

/**
 * The elements of an encoded array as they sit inside the list: without the brackets, and
 * when indented, each line moved under the list field (JSON strings hold no raw newline, so
 * every newline in the text is indentation).
 */
function batchText(array: string, fieldIndent: string, pretty: boolean): string {
  if (!pretty) return array.slice(1, -1);
  const inside = array.slice(1, array.length - 2); // "\n  A,\n  B" without the closing "\n]"
  return fieldIndent === '' ? inside : inside.replaceAll('\n', `\n${fieldIndent}`);
}

/** A copy of `envelope` with `key` set, in the key's place when the envelope has it. */
function withField(envelope: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { ...envelope };
  setOwn(out, key, value);
  return out;
}
