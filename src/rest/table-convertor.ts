// How a kind prints as a Table (Kubernetes' rest.TableConvertor): column definitions and
// the cells of one object's row.
import type { KubeObject } from '../apimachinery/types.js';

export interface TableColumnDefinition {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format: string;
  description: string;
  priority: number;
}

/** How a kind prints: the column definitions and the cells of one object's row. */
export interface TableConvertor {
  columns: TableColumnDefinition[];
  /** One row's cells, in column order. `now` lets Age columns be computed deterministically. */
  cells(obj: KubeObject, now: Date): unknown[];
}
