// Table columns of a custom resource version (Kubernetes' customresource tableconvertor):
// Name, then the version's additionalPrinterColumns (JSONPath cells typed by the column),
// or Age when it declares none.
import type { KubeObject } from '../../apimachinery/types.js';
import type { TableColumnDefinition, TableConvertor } from '../../rest/index.js';
import { ageColumn, humanDuration, nameColumn } from '../../apis/table.js';
import { parseJSONPath, type JSONPath } from './jsonpath.js';

/** One `additionalPrinterColumns` entry as the definition carries it. */
export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

const DEFAULT_COLUMNS: PrinterColumn[] = [{ name: 'Age', type: 'date', description: ageColumn.description, jsonPath: '.metadata.creationTimestamp' }];

const COLUMN_TYPES = new Set<string>(['string', 'integer', 'number', 'boolean', 'date']);

export function customResourceTable(columns: readonly PrinterColumn[]): TableConvertor {
  const used = columns.length > 0 ? columns : DEFAULT_COLUMNS;
  const defs: TableColumnDefinition[] = [nameColumn];
  const paths: (JSONPath | undefined)[] = [];
  for (const col of used) {
    let path: JSONPath | undefined;
    try {
      path = parseJSONPath(col.jsonPath);
    } catch {
      // Validation of the definition refuses such paths; a stored one prints no cells.
      path = undefined;
    }
    paths.push(path);
    defs.push({
      name: col.name,
      type: (COLUMN_TYPES.has(col.type) ? col.type : 'string') as TableColumnDefinition['type'],
      format: col.format ?? '',
      description: col.description ? col.description : `Custom resource definition column (in JSONPath format): ${col.jsonPath}`,
      priority: col.priority ?? 0,
    });
  }
  return {
    columns: defs,
    cells(obj: KubeObject, now: Date): unknown[] {
      const cells: unknown[] = [obj.metadata?.name ?? ''];
      used.forEach((col, i) => {
        const found = paths[i]?.find(obj) ?? [];
        cells.push(found.length === 0 ? null : cellValue(col.type, found[0], now));
      });
      return cells;
    },
  };
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** A cell as Kubernetes types it: a value of another type than the column's is null. */
export function cellValue(type: string, value: unknown, now: Date): unknown {
  if (type === 'string') return printed(value);
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      if (typeof value === 'bigint') return value;
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      if (typeof value === 'bigint') return Number(value);
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      if (value === '' || value === 'null') return '<unknown>';
      if (!RFC3339.test(value)) return '<invalid>';
      const t = Date.parse(value);
      if (Number.isNaN(t)) return '<invalid>';
      return humanDuration(now.getTime() - t);
    }
    default:
      return null;
  }
}

/** How client-go's jsonpath prints one value: objects and lists as JSON, scalars as Go prints them. */
function printed(value: unknown): string {
  if (value === null || value === undefined) return '<no value>';
  if (typeof value === 'object') return goJSON(value);
  if (typeof value === 'number') return goNumber(value);
  return String(value);
}

/** Go's `%v` of a decoded JSON number: integers in full, other numbers in shortest `%g`. */
function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return BigInt(n).toString();
  if (!Number.isFinite(n)) return String(n);
  const [mantissa, expText] = n.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  // Between those exponents both languages write the plain decimal.
  return String(n);
}

/** encoding/json's output: map keys sorted, HTML characters escaped. */
function goJSON(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : goJSON(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${goString(k)}:${goJSON(v)}`).join(',')}}`;
  }
  if (typeof value === 'string') return goString(value);
  if (typeof value === 'bigint') return value.toString();
  return JSON.stringify(value) ?? 'null';
}

function goString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
