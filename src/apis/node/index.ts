// RuntimeClasses.
import { requiredField } from '../../apimachinery/errors.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, nameColumn, since } from '../table.js';
import { meta, str } from '../util.js';

const runtimeClasses: KindSpec = {
  validate: (o) => (str(o.handler) ? [] : [requiredField('handler')]),
  validateUpdate: (o, old) => (o.handler === old.handler ? [] : [{ type: 'FieldValueInvalid', field: 'handler', detail: `Invalid value: ${JSON.stringify(o.handler)}: field is immutable` }]),
  table: {
    columns: [nameColumn, column('Handler', 'string', 'Handler specifies the underlying runtime and configuration that the CRI implementation will use to handle pods of this class.'), ageColumn],
    cells: (o, now) => [meta(o).name ?? '', str(o.handler) ?? '', since(meta(o).creationTimestamp, now)],
  },
};

export const nodeKinds: Record<string, KindSpec> = {
  RuntimeClass: runtimeClasses,
};
