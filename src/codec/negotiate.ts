// Content negotiation: which serializer and which representation (the object itself, a
// Table, PartialObjectMetadata) a request gets, from its Accept header; which serializer
// reads its body, from its Content-Type.
import { notAcceptable, unsupportedMediaType } from '../apimachinery/errors.js';
import type { GroupVersionKind } from '../apimachinery/types.js';
import { metaGroup } from '../naming/index.js';
import { formatMediaType, parseAccept, parseMediaType, type MediaType } from './media-type.js';
import type { Serializer, SerializerSet } from './serializer.js';

/** What is being answered: one object, a collection, or a watch stream. */
export type Target = 'object' | 'list' | 'watch';

export type MetaVersion = 'v1' | 'v1beta1';

type Representation =
  | { as: 'Object' }
  | { as: 'Table'; version: MetaVersion }
  | { as: 'PartialObjectMetadata'; version: MetaVersion }
  | { as: 'PartialObjectMetadataList'; version: MetaVersion };

export interface OutputChoice {
  serializer: Serializer;
  representation: Representation;
  /** The Content-Type header of the answer. */
  contentType: string;
}

const allowedAs: Record<Target, string[]> = {
  object: ['Table', 'PartialObjectMetadata'],
  list: ['Table', 'PartialObjectMetadataList'],
  watch: ['Table', 'PartialObjectMetadata', 'PartialObjectMetadataList'],
};

interface NegotiateOptions {
  /** False for resources that cannot print tables (virtual resources). */
  tableSupported?: boolean;
  /**
   * The kind of the objects answered (one object, or each item of a list or watch):
   * serializers without a form for what is written (`canEncode`) are passed over.
   */
  kind?: GroupVersionKind;
}

/**
 * Picks the first Accept entry the server can produce for this target. No header, `*\/*`
 * and `application/*` mean JSON. Throws 406 when nothing listed is supported: a client
 * that did not list JSON never gets it.
 */
export function negotiateOutput(accept: string | undefined, set: SerializerSet, target: Target, opts: NegotiateOptions = {}): OutputChoice {
  const entries = parseAccept(accept);
  if (entries.length === 0) return plain(set.all()[0]!);
  for (const mt of entries) {
    const choice = tryEntry(mt, set, target, opts);
    if (choice) return choice;
  }
  // kube-apiserver's message lists what it serves: for a watch, the streaming types as `;stream=watch`.
  const offered = target === 'watch' ? set.all().filter((s) => s.streaming).map((s) => `${s.mediaType};stream=watch`) : set.mediaTypes();
  throw notAcceptable(offered);
}

function plain(s: Serializer): OutputChoice {
  return { serializer: s, representation: { as: 'Object' }, contentType: s.mediaType };
}

function tryEntry(mt: MediaType, set: SerializerSet, target: Target, opts: NegotiateOptions): OutputChoice | undefined {
  let serializer: Serializer | undefined;
  if (mt.type === '*/*' || mt.type === 'application/*') serializer = set.all()[0];
  else serializer = set.byMediaType(mt.type);
  if (!serializer) return undefined;
  if (target === 'watch' && !serializer.streaming) return undefined;
  const base = serializer.mediaType;
  const as = mt.params.as;
  if (as === undefined) {
    if (!canWrite(serializer, opts.kind && (target === 'list' ? { ...opts.kind, kind: `${opts.kind.kind}List` } : opts.kind))) return undefined;
    return { serializer, representation: { as: 'Object' }, contentType: base };
  }
  if (mt.params.g !== metaGroup()) return undefined;
  const version = mt.params.v;
  if (version !== 'v1' && version !== 'v1beta1') return undefined;
  if (!allowedAs[target].includes(as)) return undefined;
  if (as === 'Table' && opts.tableSupported === false) return undefined;
  // Tables and metadata have their own kinds: a binary Table does not exist.
  const written = as === 'PartialObjectMetadataList' && target === 'watch' ? 'PartialObjectMetadata' : as;
  if (!canWrite(serializer, { group: metaGroup(), version, kind: written })) return undefined;
  const contentType = formatMediaType(base, [
    ['as', as],
    ['v', version],
    ['g', metaGroup()],
  ]);
  return { serializer, representation: { as, version } as Representation, contentType };
}

function canWrite(serializer: Serializer, kind: GroupVersionKind | undefined): boolean {
  return kind === undefined || serializer.canEncode === undefined || serializer.canEncode(kind);
}

/** Whether the answer should be indented: `?pretty=true`, or a command-line HTTP client. */
export function wantsPretty(query: URLSearchParams, userAgent: string | undefined): boolean {
  const p = query.get('pretty');
  if (p !== null && p !== '') return ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(p);
  const ua = userAgent ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget');
}

/** The patch media types and what the handler does with each. */
const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
] as const;
export type PatchType = (typeof PATCH_TYPES)[number];

/**
 * The serializer for a request body of `kind` (when given, serializers without a form for
 * it are not offered). A missing Content-Type is read as JSON. Throws 415.
 */
export function negotiateInput(contentType: string | undefined, set: SerializerSet, kind?: GroupVersionKind): Serializer {
  if (!contentType || contentType.trim() === '') return set.all()[0]!;
  const offered = set.all().filter((s) => canWrite(s, kind));
  const mt = parseMediaType(contentType);
  const s = mt ? set.byMediaType(mt.type) : undefined;
  if (!s || !offered.includes(s)) throw unsupportedMediaType(offered.map((o) => o.mediaType));
  return s;
}

/** The patch type of a PATCH request. Throws 415 for anything that is not a patch type. */
export function negotiatePatchType(contentType: string | undefined): PatchType {
  const mt = contentType ? parseMediaType(contentType) : undefined;
  const t = mt?.type ?? '';
  if ((PATCH_TYPES as readonly string[]).includes(t)) return t as PatchType;
  throw unsupportedMediaType([...PATCH_TYPES]);
}

/**
 * The serializer an error Status is written with, or undefined when no Accept entry can
 * carry one: kube-apiserver then writes the Status as indented JSON. Entries asking for a
 * Table or metadata do not count (a Status is never converted); no header means JSON.
 */
export function negotiateStatus(accept: string | undefined, set: SerializerSet): { serializer: Serializer; contentType: string } | undefined {
  const entries = parseAccept(accept);
  if (entries.length === 0) return { serializer: set.all()[0]!, contentType: set.all()[0]!.mediaType };
  for (const mt of entries) {
    if (mt.params.as !== undefined) continue;
    const choice = tryEntry(mt, set, 'object', { kind: { group: '', version: 'v1', kind: 'Status' } });
    if (choice) return { serializer: choice.serializer, contentType: choice.contentType };
  }
  return undefined;
}
