// What serving reads of a stored CustomResourceDefinition, as typed data: its names (the
// accepted ones, as Kubernetes serves them), scope, conditions and, per version, the schema
// in its canonical spelling, subresources and printer columns.
import { canonicalSchema, type JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import { getOwn } from '../../apimachinery/own.js';
import type { KubeObject } from '../../apimachinery/types.js';
import type { PrinterColumn } from './table.js';

export interface ScalePaths {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface CRDVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  deprecationWarning?: string;
  schema?: JSONSchemaProps;
  status: boolean;
  scale?: ScalePaths;
  columns: PrinterColumn[];
}

export interface CRDNames {
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  shortNames: string[];
  categories: string[];
}

export interface CRDView {
  name: string;
  uid: string;
  resourceVersion: string;
  group: string;
  namespaced: boolean;
  /** `spec.names`. */
  specNames: CRDNames;
  /** `status.acceptedNames`, falling back to `spec.names` field by field while none are accepted. */
  names: CRDNames;
  versions: CRDVersion[];
  storageVersion: string;
  conversion?: { strategy?: string; webhook?: unknown };
  established: boolean;
  terminating: boolean;
}

type Obj = Record<string, unknown>;

function record(v: unknown): Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
}

function readNames(v: unknown): CRDNames {
  const n = record(v);
  return {
    plural: str(getOwn(n, 'plural')),
    singular: str(getOwn(n, 'singular')),
    kind: str(getOwn(n, 'kind')),
    listKind: str(getOwn(n, 'listKind')),
    shortNames: strings(getOwn(n, 'shortNames')),
    categories: strings(getOwn(n, 'categories')),
  };
}

function readVersion(v: Obj): CRDVersion {
  const subresources = record(getOwn(v, 'subresources'));
  const scaleRaw = getOwn(subresources, 'scale');
  let scale: ScalePaths | undefined;
  if (scaleRaw !== undefined && scaleRaw !== null) {
    const s = record(scaleRaw);
    scale = { specReplicasPath: str(getOwn(s, 'specReplicasPath')), statusReplicasPath: str(getOwn(s, 'statusReplicasPath')) };
    const selector = str(getOwn(s, 'labelSelectorPath'));
    if (selector !== '') scale.labelSelectorPath = selector;
  }
  const statusRaw = getOwn(subresources, 'status');
  const schemaRaw = getOwn(record(getOwn(v, 'schema')), 'openAPIV3Schema');
  const columns: PrinterColumn[] = [];
  const rawColumns = getOwn(v, 'additionalPrinterColumns');
  for (const c of Array.isArray(rawColumns) ? rawColumns : []) {
    const col = record(c);
    const priority = getOwn(col, 'priority');
    const column: PrinterColumn = { name: str(getOwn(col, 'name')), type: str(getOwn(col, 'type')), jsonPath: str(getOwn(col, 'jsonPath')) };
    const format = str(getOwn(col, 'format'));
    const description = str(getOwn(col, 'description'));
    if (format) column.format = format;
    if (description) column.description = description;
    if (typeof priority === 'number') column.priority = priority;
    columns.push(column);
  }
  const warning = getOwn(v, 'deprecationWarning');
  const out: CRDVersion = {
    name: str(getOwn(v, 'name')),
    served: getOwn(v, 'served') === true,
    storage: getOwn(v, 'storage') === true,
    deprecated: getOwn(v, 'deprecated') === true,
    status: statusRaw !== undefined && statusRaw !== null,
    columns,
  };
  if (typeof warning === 'string') out.deprecationWarning = warning;
  if (schemaRaw !== undefined && schemaRaw !== null && typeof schemaRaw === 'object') out.schema = canonicalSchema(schemaRaw);
  if (scale) out.scale = scale;
  return out;
}

function conditionTrue(status: Obj, type: string): boolean {
  const conditions = getOwn(status, 'conditions');
  return Array.isArray(conditions) && conditions.some((c) => str(getOwn(record(c), 'type')) === type && str(getOwn(record(c), 'status')) === 'True');
}

export function readCRD(crd: KubeObject): CRDView {
  const spec = record(crd.spec);
  const status = record(crd.status);
  const specNames = readNames(getOwn(spec, 'names'));
  const accepted = readNames(getOwn(status, 'acceptedNames'));
  const names: CRDNames = {
    plural: accepted.plural || specNames.plural,
    singular: accepted.plural ? accepted.singular : specNames.singular,
    kind: accepted.kind || specNames.kind,
    listKind: accepted.kind ? accepted.listKind : specNames.listKind,
    shortNames: accepted.plural ? accepted.shortNames : specNames.shortNames,
    categories: accepted.plural ? accepted.categories : specNames.categories,
  };
  if (names.singular === '') names.singular = names.kind.toLowerCase();
  if (names.listKind === '') names.listKind = `${names.kind}List`;
  const rawVersions = getOwn(spec, 'versions');
  const versions = (Array.isArray(rawVersions) ? rawVersions : []).map((v) => readVersion(record(v)));
  const conversion = getOwn(spec, 'conversion');
  return {
    name: crd.metadata?.name ?? '',
    uid: crd.metadata?.uid ?? '',
    resourceVersion: crd.metadata?.resourceVersion ?? '',
    group: str(getOwn(spec, 'group')),
    namespaced: getOwn(spec, 'scope') === 'Namespaced',
    specNames,
    names,
    versions,
    storageVersion: versions.find((v) => v.storage)?.name ?? '',
    conversion: conversion === undefined ? undefined : (record(conversion) as CRDView['conversion']),
    established: conditionTrue(status, 'Established'),
    terminating: conditionTrue(status, 'Terminating'),
  };
}
