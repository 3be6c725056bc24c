// The answer to a resource request: the representation the Accept header asked for
// (negotiated before the Store is called, so that a 406 costs nothing), the object turned
// into a Table or metadata when asked, encoded and written with the request's warnings.
import { isPlainObject, type KubeList, type KubeObject } from '../../apimachinery/types.js';
import { negotiateOutput, type OutputChoice, type Target } from '../../codec/negotiate.js';
import { fallbackTableConvertor, parseIncludeObject, partialObjectMetadata, partialObjectMetadataList, toTable } from '../../codec/representation.js';
import type { SerializerSet } from '../../codec/serializer.js';
import type { RESTStore, TableConvertor } from '../../rest/index.js';
import { headerValue, setWarnings, writeBody } from '../http.js';
import type { ResourceRequest } from './request.js';
import { expectedKind } from './write.js';

export function negotiate(r: ResourceRequest, serializers: SerializerSet, store: RESTStore, target: Target): OutputChoice {
  return negotiateOutput(headerValue(r.req, 'accept'), serializers, target, { kind: expectedKind(store, r.info.subresource) });
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
 * A virtual resource without a Strategy may still print its own columns by carrying a
 * `tableConvertor` (an extension of RESTStore local to the server).
 */
export interface TablePrinting {
  tableConvertor?: TableConvertor;
}

/** The columns of a resource: its Strategy's, a virtual store's own, or Name and Created At. */
export function tableConvertorOf(store: RESTStore): TableConvertor {
  return store.definition.strategy?.table ?? (store as RESTStore & TablePrinting).tableConvertor ?? fallbackTableConvertor;
}
