// Server-side tables (`kubectl get`): column helpers, the humanized Age, and the default
// convertor (Name, Created At) for kinds without columns of their own.
import type { KubeObject } from '../apimachinery/types.js';
import type { TableColumnDefinition, TableConvertor } from '../rest/index.js';
import { meta } from './util.js';
import { rfc3339 } from '../apimachinery/time.js';

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated.';
const CREATED_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists.';

type ColumnType = TableColumnDefinition['type'];

/** A column; `wide` marks the priority-1 columns shown only with `-o wide`. */
export function column(name: string, type: ColumnType = 'string', description = '', wide = false): TableColumnDefinition {
  return { name, type, format: '', description, priority: wide ? 1 : 0 };
}

export function wide(name: string, type: ColumnType = 'string', description = ''): TableColumnDefinition {
  return column(name, type, description, true);
}

export const nameColumn: TableColumnDefinition = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: NAME_DESCRIPTION,
  priority: 0,
};

export const ageColumn: TableColumnDefinition = column('Age', 'string', CREATED_DESCRIPTION);

/**
 * A duration as kubectl prints ages: seconds up to 2 minutes, then minutes (with seconds
 * under 10m), hours (with minutes under 8h), days (with hours under 8d), years.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  // Up to a second of clock skew into the future still reads as "now".
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

/** Time since a timestamp, humanized; `<unknown>` when absent or unparsable. */
export function since(timestamp: unknown, now: Date): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unknown>';
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return '<unknown>';
  return humanDuration(now.getTime() - t);
}

function nameOf(o: KubeObject): string {
  return meta(o).name ?? '';
}

/** The creation time as a date column (RFC 3339 cells), as Kubernetes' default table and RBAC roles show it. */
export const createdAtColumn: TableColumnDefinition = { name: 'Created At', type: 'date', format: '', description: CREATED_DESCRIPTION, priority: 0 };

export const defaultTableConvertor: TableConvertor = {
  columns: [nameColumn, createdAtColumn],
  cells(o: KubeObject): unknown[] {
    const created = meta(o).creationTimestamp;
    let createdAt: string | null = null;
    if (typeof created === 'string' && !Number.isNaN(Date.parse(created))) {
      createdAt = rfc3339(new Date(Date.parse(created)));
    }
    return [nameOf(o), createdAt];
  },
};
