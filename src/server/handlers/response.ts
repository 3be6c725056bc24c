// The answer to a resource request: the representation the Accept header asked for
// (negotiated before the Store is called, so that a 406 costs nothing), the object turned
// into a Table or metadata when asked, encoded and written with the request's warnings.
import { isPlainObject, type KubeList, type KubeObject } from '../../apimachinery/types.js';
import { negotiateOutput, type OutputChoice, type Target } from '../../codec/negotiate.js';
import { jsonListChunks, type StreamedList } from '../../codec/json-list.js';
import { fallbackTableConvertor, parseIncludeObject, partialObjectMetadata, partialObjectMetadataList, toTable } from '../../codec/representation.js';
import { jsonSerializer, type SerializerSet } from '../../codec/serializer.js';
import type { GetAnswer, RESTStore, StoreList, SubresourceStore, TableConvertor } from '../../rest/index.js';
import { headerValue, setWarnings, writeBody, type ServerResponse } from '../http.js';
import type { ResourceRequest } from './request.js';
import { expectedKind } from './write.js';

export function negotiate(r: ResourceRequest, serializers: SerializerSet, store: RESTStore, target: Target, subresource?: SubresourceStore): OutputChoice {
  return negotiateOutput(headerValue(r.req, 'accept'), serializers, target, { kind: expectedKind(store, subresource) });
}

/** Encodes an object or list in the negotiated representation and writes it. */
export function respond(r: ResourceRequest, serializers: SerializerSet, store: RESTStore, choice: OutputChoice, code: number, value: KubeObject | KubeList, now: Date): void {
  const rep = choice.representation;
  let out: unknown = value;
  const isList = Array.isArray((value as KubeList).items);
  if (value.kind !== 'Status') {
    if (rep.as === 'Table') {
      const includeObject = parseIncludeObject(r.query.get('includeObject'));
      const convertor = tableConvertorOf(store);
      const items = isList ? (value as KubeList).items : [value as KubeObject];
      const listMeta = isList ? (value as KubeList).metadata : { resourceVersion: (value as KubeObject).metadata?.resourceVersion };
      out = toTable(items, listMeta, convertor, { version: rep.version, includeObject, withColumns: true, now });
    } else if (rep.as !== 'Object') {
      out = isList ? partialObjectMetadataList(value as KubeList, rep.version) : partialObjectMetadata(value as KubeObject, rep.version);
    }
  }
  writeEncoded(r, serializers, choice, code, out);
}

export function writeEncoded(r: ResourceRequest, serializers: SerializerSet, choice: OutputChoice, code: number, out: unknown): void {
  const isStatus = isPlainObject(out) && out.kind === 'Status';
  // A Status in answer to a Table or metadata request is written as itself, in JSON.
  const serializer = isStatus && choice.representation.as !== 'Object' ? serializers.all()[0]! : choice.serializer;
  const contentType = isStatus ? serializer.mediaType : choice.contentType;
  r.audit?.responseObject(out);
  const bytes = serializer.encode(out, { pretty: r.pretty });
  setWarnings(r.res, r.warnings);
  writeBody(r.res, code, contentType, bytes, r.req.method === 'HEAD');
}

/**
 * Answers a GET of the object itself (representation Object, no audit body), as
 * writeEncoded would: the bytes of a shared answer are encoded once per media type and
 * indentation, then copied.
 */
export function writeAnswer(r: ResourceRequest, choice: OutputChoice, answer: GetAnswer): void {
  const encode = (): Uint8Array => choice.serializer.encode(answer.build(), { pretty: r.pretty });
  const shared = answer.shared;
  const bytes = shared ? shared.encodings.get(shared.source, `get|${choice.contentType}|${r.pretty ? 'pretty' : ''}`, encode) : encode();
  setWarnings(r.res, r.warnings);
  writeBody(r.res, 200, choice.contentType, bytes, r.req.method === 'HEAD');
}

/**
 * Answers a LIST. JSON goes out as a stream (the envelope, then the items as each is
 * encoded) so the first byte leaves at once and memory does not grow with the list; other
 * formats, HEAD, and requests whose audit event keeps the response body are encoded whole.
 */
export async function respondList(r: ResourceRequest, serializers: SerializerSet, store: RESTStore, choice: OutputChoice, list: StoreList, now: Date): Promise<void> {
  // `items` of a list with lazy items is read only by an answer encoded whole (it builds them all).
  const streams = choice.serializer === jsonSerializer && r.req.method !== 'HEAD' && r.audit?.level !== 'RequestResponse' && (list.lazy !== undefined || Array.isArray(list.items));
  if (!streams) {
    respond(r, serializers, store, choice, 200, list, now);
    return;
  }
  const streamed = streamedList(r, store, choice, list, now);
  await writeChunks(r, choice.contentType, jsonListChunks(streamed, r.pretty));
}

/** The list in the representation asked for, its items built one at a time. */
function streamedList(r: ResourceRequest, store: RESTStore, choice: OutputChoice, list: StoreList, now: Date): StreamedList {
  const rep = choice.representation;
  // Items of a snapshot are built as they are encoded, and not kept.
  const lazy = list.lazy;
  const items = lazy ? undefined : list.items;
  const count = lazy ? lazy.count : items!.length;
  const item: (i: number) => KubeObject = lazy ? (i) => lazy.at(i) as KubeObject : (i) => items![i]!;
  // The envelope without the items (a spread would read `items`, building lazy ones).
  const envelope: KubeList = { apiVersion: list.apiVersion, kind: list.kind, metadata: list.metadata, items: [] };
  if (rep.as === 'Table') {
    const includeObject = parseIncludeObject(r.query.get('includeObject'));
    const convertor = tableConvertorOf(store);
    const row = (objects: KubeObject[], withColumns: boolean): Record<string, unknown> => toTable(objects, envelope.metadata, convertor, { version: rep.version, includeObject, withColumns, now });
    return { envelope: row([], true), key: 'rows', count, element: (i) => (row([item(i)], false).rows as unknown[])[0] };
  }
  if (rep.as !== 'Object') {
    return { envelope: partialObjectMetadataList(envelope, rep.version) as unknown as Record<string, unknown>, key: 'items', count, element: (i) => partialObjectMetadata(item(i), rep.version) };
  }
  return { envelope: envelope as unknown as Record<string, unknown>, key: 'items', count, element: item, stored: lazy?.stored?.bind(lazy), splices: lazy?.splices };
}

/**
 * Writes a 200 answer chunk by chunk: waits for the client to read when its buffers are
 * full, lets other requests run between chunks, and stops when the request ends (client
 * gone, deadline). A failure after the first chunk cannot become a Status any more: the
 * response is destroyed (HTTP/2 RST_STREAM, HTTP/1.1 closed without the last chunk) so the
 * client sees an error rather than a shorter list that parses.
 */
async function writeChunks(r: ResourceRequest, contentType: string, chunks: Iterator<Buffer>): Promise<void> {
  const res = r.res as StreamingResponse;
  // Before anything is written a failure is still an ordinary error answer.
  let next = chunks.next();
  setWarnings(res, r.warnings);
  res.statusCode = 200;
  res.setHeader('Content-Type', contentType);
  let failed: Error | undefined;
  const abandon = (): void => {
    failed ??= new Error('the list was not sent whole: the request ended');
    res.destroy(failed);
  };
  r.signal.addEventListener('abort', abandon, { once: true });
  const gone = (): boolean => r.signal.aborted || res.destroyed === true;
  try {
    while (!next.done) {
      if (gone()) return;
      const room = res.write(next.value);
      // Node reports a full buffer past 16 KiB; waiting there would leave the socket idle while
      // the next chunk is encoded. A little more is kept queued, still bounded per request.
      if (!room && (res.writableLength ?? Infinity) > LIST_QUEUED_BYTES) await drained(res, r.signal);
      else await new Promise<void>((resolve) => setImmediate(resolve));
      if (gone()) return;
      try {
        next = chunks.next();
      } catch (err) {
        failed = err instanceof Error ? err : new Error(String(err));
        res.destroy(failed);
        return;
      }
    }
    res.end();
  } finally {
    r.signal.removeEventListener('abort', abandon);
  }
}

/** How many bytes of a streamed list may wait in the response's buffers before encoding pauses. */
const LIST_QUEUED_BYTES = 1024 * 1024;

/** What a streamed answer needs of Node's responses beyond ServerResponse (both HTTP versions have it). */
interface StreamingResponse extends ServerResponse {
  /** Absent on HTTP/2 responses: their end shows as the request's signal. */
  readonly destroyed?: boolean;
  /** Bytes queued and not yet handed to the socket. */
  readonly writableLength?: number;
  destroy(err?: Error): unknown;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
}

/** Resolves when the response can take more, or will never (closed, request ended). */
function drained(res: StreamingResponse, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * A virtual resource without a Strategy may still print its own columns by carrying a
 * `tableConvertor` (an extension of RESTStore local to the server).
 */
/** The columns of a resource: its Strategy's, a virtual resource's own, or Name and Created At. */
export function tableConvertorOf(store: RESTStore): TableConvertor {
  return store.definition.strategy?.table ?? store.definition.table ?? fallbackTableConvertor;
}
