// Field selectors: `?fieldSelector=metadata.name=x,status.phase!=Running`. Terms are
// comma-joined `field=value`, `field==value` or `field!=value`; `\`, `,` and `=` inside a
// value are escaped with a backslash. Pure functions; errors are 400 BadRequest.
import { badRequest } from './errors.js';

type FieldOperator = '=' | '!=';

interface FieldRequirement {
  field: string;
  operator: FieldOperator;
  value: string;
}

export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  readonly empty: boolean;
  /** Missing fields read as the empty string, as Kubernetes' fields.Set does. */
  matches(fields: Record<string, string>): boolean;
  /** The value a `field=value` term pins, if any (used to narrow a list to one key). */
  requiresExactMatch(field: string): string | undefined;
  toString(): string;
}

class TermsSelector implements FieldSelector {
  constructor(readonly requirements: readonly FieldRequirement[]) {}

  get empty(): boolean {
    return this.requirements.length === 0;
  }

  matches(fields: Record<string, string>): boolean {
    return this.requirements.every((r) => {
      const actual = Object.prototype.hasOwnProperty.call(fields, r.field) ? fields[r.field] : '';
      return r.operator === '=' ? actual === r.value : actual !== r.value;
    });
  }

  requiresExactMatch(field: string): string | undefined {
    return this.requirements.find((r) => r.field === field && r.operator === '=')?.value;
  }

  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(',');
  }
}

export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

function unescapeFieldValue(value: string): string {
  if (!/[\\,=]/.test(value)) return value;
  let out = '';
  let escaped = false;
  for (const c of value) {
    if (escaped) {
      if (c !== '\\' && c !== ',' && c !== '=') throw badRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      escaped = false;
    } else if (c === '\\') {
      escaped = true;
    } else if (c === ',' || c === '=') {
      // The message names the character by its code point, as Kubernetes prints it.
      throw badRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (escaped) throw badRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Splits on commas that are not escaped. */
function splitTerms(selector: string): string[] {
  if (selector === '') return [];
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (escaped) escaped = false;
    else if (c === '\\') escaped = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

/** The first operator occurrence wins; at one position `!=` and `==` are tried before `=`. */
function splitTerm(term: string): FieldRequirement | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '='] as const) {
      if (term.startsWith(op, i)) {
        return { field: term.slice(0, i), operator: op === '!=' ? '!=' : '=', value: term.slice(i + op.length) };
      }
    }
  }
  return undefined;
}

export function parseFieldSelector(selector: string): FieldSelector {
  const terms = splitTerms(selector).sort();
  const requirements: FieldRequirement[] = [];
  for (const term of terms) {
    if (term === '') continue;
    const r = splitTerm(term);
    if (!r) throw badRequest(`invalid selector: '${selector}'; can't understand '${term}'`);
    requirements.push({ ...r, value: unescapeFieldValue(r.value) });
  }
  return new TermsSelector(requirements);
}

/** `metadata.name=<name>`: how a watch or list of one object is expressed. */
export function oneTermEqualSelector(field: string, value: string): FieldSelector {
  return new TermsSelector([{ field, operator: '=', value }]);
}

/** Every field name the selector uses that is not in `allowed`, in order of appearance. */
export function unsupportedFields(selector: FieldSelector, allowed: readonly string[]): string[] {
  return selector.requirements.map((r) => r.field).filter((f) => !allowed.includes(f));
}
