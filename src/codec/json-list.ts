// A list's JSON written piece by piece: the envelope up to the opening bracket of its items,
// the items in chunks as each is encoded, then the envelope's remainder. The bytes are those
// `jsonSerializer.encode` writes for the whole list (Go's field order and omissions, bigint
// integers, the same indentation), so a client cannot tell a streamed answer from a whole one.
import { randomBytes } from 'node:crypto';
import { setOwn } from '../apimachinery/own.js';
import { goOrderOfElement, inGoOrder } from './field-order.js';
import { stringifyJson } from './json.js';

/** A list to stream: an envelope whose `key` holds `count` elements produced on demand. */
export interface StreamedList {
  envelope: Record<string, unknown>;
  /** The field holding the elements (`items`, a Table's `rows`). */
  key: string;
  count: number;
  /** The element at `i`, built when it is about to be written (so a Table row exists only while it is encoded). */
  element(i: number): unknown;
}

/**
 * The items of a list answered from a snapshot without being built: `count` of them, each
 * produced by `at` when it is about to be encoded and dropped after, so a streamed answer
 * starts at once and holds one batch at a time. Every call of `at` builds a new object.
 */
export interface LazyItems {
  readonly count: number;
  at(i: number): unknown;
}

// A list whose items are produced on demand, by the list object: its `items` field is left
// empty until `materializeItems` fills it for an encode that needs them all.
const lazyLists = new WeakMap<object, LazyItems>();

/** Marks `list` as holding `items` on demand (its own `items` field stays empty until materialized). */
export function withLazyItems<L extends object>(list: L, items: LazyItems): L {
  lazyLists.set(list, items);
  return list;
}

/** The on-demand items of `list`, if it has them and they were not materialized. */
export function lazyItemsOf(list: object): LazyItems | undefined {
  return lazyLists.get(list);
}

/** Fills `list.items` from its on-demand items (for answers encoded whole); a list without them is left as it is. */
export function materializeItems(list: { items: unknown[] }): void {
  const lazy = lazyLists.get(list);
  if (lazy === undefined) return;
  const items = new Array<unknown>(lazy.count);
  for (let i = 0; i < lazy.count; i++) items[i] = lazy.at(i);
  list.items = items;
  lazyLists.delete(list);
}

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
  let written = 0;
  let first = true;
  yield* chunked(function* () {
    yield `${head}[`;
    for (let i = 0; i < list.count; ) {
      const end = Math.min(list.count, i + batch);
      const elements = new Array<unknown>(end - i);
      for (let j = i; j < end; j++) elements[j - i] = order(list.element(j));
      const text = batchText(stringifyJson(elements, indent), fieldIndent, pretty);
      written += text.length;
      yield first ? text : `,${text}`;
      first = false;
      i = end;
      batch = Math.max(1, Math.min(4096, Math.floor(chunkBytes / (written / i))));
    }
    yield `${pretty ? `\n${fieldIndent}` : ''}]${tail}`;
  }(), chunkBytes);
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

/** Joins pieces of text into buffers of at least `size` characters (the last one shorter). */
function* chunked(pieces: Iterable<string>, size: number): Generator<Buffer, void, undefined> {
  let pending = '';
  for (const piece of pieces) {
    pending += piece;
    if (pending.length >= size) {
      yield Buffer.from(pending);
      pending = '';
    }
  }
  if (pending !== '') yield Buffer.from(pending);
}

/** A copy of `envelope` with `key` set, in the key's place when the envelope has it. */
function withField(envelope: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { ...envelope };
  setOwn(out, key, value);
  return out;
}
