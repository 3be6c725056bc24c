// Label selectors: the string grammar of `?labelSelector=` (`a=b,c!=d,e in (f,g),!h`), the
// `matchLabels`/`matchExpressions` object form used by workloads, webhooks and policies,
// and the name and value rules that labels, label keys and DNS names follow. Pure functions;
// parse errors are 400 BadRequest with the messages Kubernetes clients know.
import { badRequest } from './errors.js';

// ---------------------------------------------------------------------------------------
// Name rules (label keys and values, DNS names)

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_RE = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  // Each example is followed by "', " and joined with " or ": Kubernetes' messages carry the double space.
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

/** Label keys, annotation keys, finalizer names: `[prefix/]name`. Returns the problems found. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!QUALIFIED_NAME_RE.test(name)) {
    errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!LABEL_VALUE_RE.test(value)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!DNS1123_LABEL_RE.test(value)) {
    errs.push(DNS1123_SUBDOMAIN_RE.test(value) ? 'must not contain dots' : regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!DNS1035_LABEL_RE.test(value)) errs.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errs;
}

// ---------------------------------------------------------------------------------------
// Requirements and selectors

type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  /** Sorted, without duplicates; empty for `exists` and `!`. */
  values: string[];
}

export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  /** True for the selector that selects everything (no requirements). */
  readonly empty: boolean;
  matches(labels: Record<string, string> | undefined): boolean;
  toString(): string;
}

/** Renders a field error as Kubernetes' field.Error does: `path: Invalid value: "v": detail`. */
function invalidValue(path: string, value: unknown, detail: string): string {
  const rendered = Array.isArray(value)
    ? `[]string{${value.map((v) => JSON.stringify(v)).join(', ')}}`
    : JSON.stringify(value);
  return `${path}: Invalid value: ${rendered}: ${detail}`;
}

function aggregate(errs: string[]): string {
  return errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`;
}

/**
 * Builds one requirement, checking key, operator arity and values. Returns the error
 * message (aggregated as Kubernetes does) instead of the requirement when invalid.
 * `keyPath` is how the key is named in messages (`key` for the object form).
 */
function newRequirement(key: string, operator: LabelOperator, values: string[], keyPath = 'key'): LabelRequirement | string {
  const errs: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) errs.push(invalidValue(keyPath, key, keyErrs.join('; ')));
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) errs.push(invalidValue('values', values, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errs.push(invalidValue('values', values, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) errs.push(invalidValue('values', values, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errs.push(invalidValue('values', values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (!/^[+-]?\d+$/.test(v)) errs.push(invalidValue(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
  }
  values.forEach((v, i) => {
    const valueErrs = isValidLabelValue(v);
    if (valueErrs.length > 0) errs.push(invalidValue(`values[${i}][${key}]`, v, valueErrs.join('; ')));
  });
  if (errs.length > 0) return aggregate(errs);
  return { key, operator, values: [...new Set(values)].sort() };
}

function requirementMatches(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(value as string);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(value as string);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !/^[+-]?\d+$/.test(value as string)) return false;
      const actual = Number(value);
      const bound = Number(r.values[0]);
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

function requirementString(r: LabelRequirement): string {
  switch (r.operator) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${r.values.join(',')})`;
    case 'gt':
      return `${r.key}>${r.values[0]}`;
    case 'lt':
      return `${r.key}<${r.values[0]}`;
    default:
      return `${r.key}${r.operator}${r.values[0]}`;
  }
}

class RequirementsSelector implements LabelSelector {
  readonly requirements: readonly LabelRequirement[];

  constructor(requirements: LabelRequirement[]) {
    // Sorted by key (stable) so that equal selectors print and compare the same.
    this.requirements = [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  get empty(): boolean {
    return this.requirements.length === 0;
  }

  matches(labels: Record<string, string> | undefined): boolean {
    const l = labels ?? {};
    return this.requirements.every((r) => requirementMatches(r, l));
  }

  toString(): string {
    return this.requirements.map(requirementString).join(',');
  }
}

/** The selector of a nil LabelSelector object: selects nothing. */
class NothingSelector implements LabelSelector {
  readonly requirements: readonly LabelRequirement[] = [];
  readonly empty = false;
  matches(): boolean {
    return false;
  }
  toString(): string {
    return '';
  }
}

function nothing(): LabelSelector {
  return new NothingSelector();
}

/** A selector requiring every label of `set` with its value (`matchLabels`). */
export function selectorFromSet(set: Record<string, string>): LabelSelector {
  return new RequirementsSelector(Object.entries(set).map(([key, value]) => ({ key, operator: '=' as const, values: [value] })));
}

// ---------------------------------------------------------------------------------------
// The string grammar

type TokenKind = 'ident' | 'end' | '(' | ')' | ',' | '!' | '=' | '==' | '!=' | '>' | '<' | 'in' | 'notin';

interface Token {
  kind: TokenKind;
  text: string;
}

const SPECIAL = new Set(['=', '!', '(', ')', ',', '>', '<']);
const SYMBOLS = new Set(['(', ')', ',', '!', '=', '==', '!=', '>', '<']);

function isSpace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
}

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  for (;;) {
    while (i < input.length && isSpace(input[i])) i++;
    if (i >= input.length) {
      tokens.push({ kind: 'end', text: '' });
      return tokens;
    }
    if (SPECIAL.has(input[i])) {
      // Longest run of special characters that still spells a symbol (`!=`, `==`).
      let text = input[i++];
      while (i < input.length && SPECIAL.has(input[i]) && SYMBOLS.has(text + input[i])) text += input[i++];
      tokens.push({ kind: text as TokenKind, text });
      continue;
    }
    let text = '';
    while (i < input.length && !SPECIAL.has(input[i]) && !isSpace(input[i])) text += input[i++];
    tokens.push({ kind: text === 'in' || text === 'notin' ? text : 'ident', text });
  }
}

class SyntaxError extends Error {}

/** Recursive-descent parser over the token list; `in`/`notin` are keywords only in operator position. */
class SelectorParser {
  private pos = 0;

  constructor(private readonly tokens: Token[]) {}

  private peek(asValue = true): Token {
    return this.view(this.tokens[this.pos], asValue);
  }

  private next(asValue = true): Token {
    return this.view(this.tokens[this.pos++], asValue);
  }

  private view(t: Token, asValue: boolean): Token {
    return asValue && (t.kind === 'in' || t.kind === 'notin') ? { kind: 'ident', text: t.text } : t;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const t = this.peek();
      if (t.kind === 'end') return requirements;
      if (t.kind !== 'ident' && t.kind !== '!') {
        throw new SyntaxError(`found '${t.text}', expected: !, identifier, or 'end of string'`);
      }
      try {
        requirements.push(this.requirement());
      } catch (e) {
        if (e instanceof SyntaxError) throw new SyntaxError(`unable to parse requirement: ${e.message}`);
        throw e;
      }
      const sep = this.next();
      if (sep.kind === 'end') return requirements;
      if (sep.kind !== ',') throw new SyntaxError(`found '${sep.text}', expected: ',' or 'end of string'`);
      const after = this.peek();
      if (after.kind !== 'ident' && after.kind !== '!') {
        throw new SyntaxError(`found '${after.text}', expected: identifier after ','`);
      }
    }
  }

  private requirement(): LabelRequirement {
    let negated = false;
    let t = this.next();
    if (t.kind === '!') {
      negated = true;
      t = this.next();
    }
    if (t.kind !== 'ident') throw new SyntaxError(`found '${t.text}', expected: identifier`);
    const key = t.text;
    const keyErrs = isQualifiedName(key);
    if (keyErrs.length > 0) throw new SyntaxError(invalidValue('<nil>', key, keyErrs.join('; ')));
    const following = this.peek().kind;
    if (negated || following === 'end' || following === ',') {
      return this.build(key, negated ? '!' : 'exists', []);
    }
    const op = this.next(false);
    switch (op.kind) {
      case 'in':
      case 'notin':
        return this.build(key, op.kind, this.valueSet());
      case '=':
      case '==':
      case '!=':
        return this.build(key, op.kind, [this.exactValue()]);
      case '>':
        return this.build(key, 'gt', [this.exactValue()]);
      case '<':
        return this.build(key, 'lt', [this.exactValue()]);
      default:
        throw new SyntaxError(`found '${op.text}', expected: in, notin, =, ==, !=, gt, lt`);
    }
  }

  private build(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
    const r = newRequirement(key, operator, [...new Set(values)].sort());
    if (typeof r === 'string') throw new SyntaxError(r);
    return r;
  }

  private valueSet(): string[] {
    const open = this.next();
    if (open.kind !== '(') throw new SyntaxError(`found '${open.text}' expected: '('`);
    const first = this.peek();
    if (first.kind === ')') {
      this.next();
      return [''];
    }
    if (first.kind !== 'ident' && first.kind !== ',') {
      throw new SyntaxError(`found '${first.text}', expected: ',', ')' or identifier`);
    }
    const values = new Set<string>();
    for (;;) {
      const t = this.next();
      if (t.kind === 'ident') {
        values.add(t.text);
        const after = this.peek();
        if (after.kind === ')') break;
        if (after.kind !== ',') throw new SyntaxError(`found '${after.text}', expected: ',' or ')'`);
      } else if (t.kind === ',') {
        // Empty members: `(,a)`, `(a,)`, `(a,,b)` each contribute the empty value.
        if (values.size === 0) values.add('');
        const after = this.peek();
        if (after.kind === ')') {
          values.add('');
          break;
        }
        if (after.kind === ',') {
          this.next();
          values.add('');
        }
      } else {
        throw new SyntaxError(`found '${t.text}', expected: ',', or identifier`);
      }
    }
    this.next(); // the closing parenthesis
    return [...values];
  }

  private exactValue(): string {
    const t = this.peek();
    if (t.kind === 'end' || t.kind === ',') return '';
    this.next();
    if (t.kind !== 'ident') throw new SyntaxError(`found '${t.text}', expected: identifier`);
    return t.text;
  }
}

/** Parses the string form; throws 400 BadRequest with Kubernetes' parser messages. */
export function parseLabelSelector(selector: string): LabelSelector {
  try {
    return new RequirementsSelector(new SelectorParser(tokenize(selector)).parse());
  } catch (e) {
    if (e instanceof SyntaxError) throw badRequest(e.message);
    throw e;
  }
}

// ---------------------------------------------------------------------------------------
// The object form (metav1.LabelSelector)

interface LabelSelectorRequirementObject {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirementObject[];
}

const OBJECT_OPERATORS: Record<string, LabelOperator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * Converts a LabelSelector object: undefined/null selects nothing, `{}` everything.
 * Throws 400 BadRequest for invalid keys, values or operators.
 */
export function labelSelectorAsSelector(obj: LabelSelectorObject | null | undefined): LabelSelector {
  if (obj === null || obj === undefined) return nothing();
  const requirements: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(obj.matchLabels ?? {})) {
    const r = newRequirement(key, '=', [value]);
    if (typeof r === 'string') throw badRequest(r);
    requirements.push(r);
  }
  for (const expr of obj.matchExpressions ?? []) {
    const op = OBJECT_OPERATORS[expr.operator];
    if (!op) throw badRequest(`${JSON.stringify(expr.operator)} is not a valid label selector operator`);
    const r = newRequirement(expr.key, op, [...(expr.values ?? [])]);
    if (typeof r === 'string') throw badRequest(r);
    requirements.push(r);
  }
  return new RequirementsSelector(requirements);
}
