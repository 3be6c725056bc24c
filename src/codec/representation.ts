// The alternative representations a client can ask for in Accept: a Table (server-side
// printing) and PartialObjectMetadata (metadata only). Pure functions over plain objects.
import { badRequest } from '../apimachinery/errors.js';
import type { KubeList, KubeObject, ListMeta } from '../apimachinery/types.js';
import { metaGroup } from '../naming/index.js';
import type { TableColumnDefinition, TableConvertor } from '../rest/index.js';
import type { MetaVersion } from './negotiate.js';

type IncludeObject = 'None' | 'Metadata' | 'Object';

export function parseIncludeObject(value: string | null): IncludeObject {
  if (value === null || value === '') return 'Metadata';
  if (value === 'None' || value === 'Metadata' || value === 'Object') return value;
  throw badRequest(`unrecognized includeObject value: ${JSON.stringify(value)}`);
}

/** The table every kind without its own columns gets: Name and Created At. */
export const fallbackTableConvertor: TableConvertor = {
  columns: [
    { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 },
    { name: 'Created At', type: 'date', format: '', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.', priority: 0 },
  ],
  cells: (obj) => [obj.metadata?.name ?? '', obj.metadata?.creationTimestamp ?? null],
};

export function partialObjectMetadata(obj: KubeObject, version: MetaVersion): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: `${metaGroup()}/${version}`, metadata: obj.metadata ?? {} };
}

export function partialObjectMetadataList(list: KubeList, version: MetaVersion): KubeList {
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion: `${metaGroup()}/${version}`,
    metadata: list.metadata,
    items: list.items.map((o) => partialObjectMetadata(o, version)),
  };
}

interface TableOptions {
  version: MetaVersion;
  includeObject: IncludeObject;
  /** False on watch events after the first: Kubernetes sends the columns once. */
  withColumns: boolean;
  now: Date;
}

/** A Table of one object or of a list's items. */
export function toTable(objects: KubeObject[], listMeta: ListMeta, convertor: TableConvertor, opts: TableOptions): Record<string, unknown> {
  const columns: TableColumnDefinition[] | null = opts.withColumns ? convertor.columns : null;
  const rows = objects.map((obj) => {
    const row: Record<string, unknown> = { cells: convertor.cells(obj, opts.now) };
    if (opts.includeObject === 'Object') row.object = obj;
    else if (opts.includeObject === 'Metadata') row.object = partialObjectMetadata(obj, opts.version);
    // Kubernetes writes an empty embedded object as null rather than leaving it out.
    else row.object = null;
    return row;
  });
  return {
    kind: 'Table',
    apiVersion: `${metaGroup()}/${opts.version}`,
    metadata: listMeta,
    columnDefinitions: columns,
    rows,
  };
}
