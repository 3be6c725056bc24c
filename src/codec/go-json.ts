// How Go's JSON decoder words what it finds wrong with a document, the text Kubernetes puts
// in Status messages: "unexpected end of JSON input", "invalid character 'x' looking for
// beginning of value", "json: cannot unmarshal array into Go value of type ...". JSON.parse
// decides whether a body is well-formed; only when it is not does `goJsonSyntaxError` scan
// the bytes for the first error as Go's validator reports it.

const enum Container {
  /** In an object, reading a key (before its colon). */
  ObjectKey,
  /** In an object, reading a value (after the colon). */
  ObjectValue,
  Array,
}

/** Where the scan stands; each state names what it expects next. */
const enum State {
  Value,
  ValueOrArrayEnd,
  KeyOrObjectEnd,
  Key,
  AfterValue,
  AfterTop,
  InString,
  StringEscape,
  UnicodeEscape,
  Minus,
  Zero,
  Digits,
  DecimalPoint,
  Fraction,
  Exponent,
  ExponentSign,
  ExponentDigits,
  Literal,
}

const LITERALS: Record<number, string> = { 0x74: 'true', 0x66: 'false', 0x6e: 'null' };

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

/**
 * A byte as Go quotes it in a syntax error: the byte read as a code point, in single quotes,
 * escaped as Go's strconv escapes non-printable characters (`'\n'`, `'\x00'`, `'\u0085'`).
 */
export function goQuoteByte(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  if (c === 0x5c) return `'\\\\'`;
  const named: Record<number, string> = { 0x07: 'a', 0x08: 'b', 0x0c: 'f', 0x0a: 'n', 0x0d: 'r', 0x09: 't', 0x0b: 'v' };
  if (named[c]) return `'\\${named[c]}'`;
  const hex = c.toString(16).padStart(2, '0');
  if (c < 0x20 || c === 0x7f) return `'\\x${hex}'`;
  // C1 controls, the no-break space and the soft hyphen are not printable in Go's sense.
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `'\\u00${hex}'`;
  return `'${String.fromCharCode(c)}'`;
}

/** Go's decoder refuses documents nested deeper than this (encoding/json's maxNestingDepth). */
export const GO_JSON_MAX_DEPTH = 10_000;

/**
 * Go's message for the first syntax error of `bytes`, or undefined for well-formed JSON. A
 * container opened beyond `maxDepth` is an error at its bracket, as Go's scanner has it
 * (`invalid character '[' exceeded max depth`); errors before it come first.
 */
export function goJsonSyntaxError(bytes: Uint8Array, maxDepth = GO_JSON_MAX_DEPTH): string | undefined {
  const stack: Container[] = [];
  let state = State.Value;
  let literal = '';
  let literalPos = 0;
  let hexLeft = 0;
  let done = false;
  const invalid = (c: number, context: string): string => `invalid character ${goQuoteByte(c)} ${context}`;

  /** Closes the innermost container; the document is complete when none is left. */
  const pop = (): void => {
    stack.pop();
    if (stack.length === 0) {
      state = State.AfterTop;
      done = true;
    } else state = State.AfterValue;
  };

  const afterValue = (c: number): string | undefined => {
    const top = stack.length === 0 ? undefined : stack[stack.length - 1];
    if (top === undefined) {
      state = State.AfterTop;
      done = true;
      return isSpace(c) ? undefined : invalid(c, 'after top-level value');
    }
    state = State.AfterValue;
    if (isSpace(c)) return undefined;
    if (top === Container.ObjectKey) {
      if (c !== 0x3a) return invalid(c, 'after object key');
      stack[stack.length - 1] = Container.ObjectValue;
      state = State.Value;
      return undefined;
    }
    if (top === Container.ObjectValue) {
      if (c === 0x2c) {
        stack[stack.length - 1] = Container.ObjectKey;
        state = State.Key;
      } else if (c === 0x7d) pop();
      else return invalid(c, 'after object key:value pair');
      return undefined;
    }
    if (c === 0x2c) state = State.Value;
    else if (c === 0x5d) pop();
    else return invalid(c, 'after array element');
    return undefined;
  };

  const beginValue = (c: number): string | undefined => {
    if (isSpace(c)) return undefined;
    if (c === 0x7b) {
      stack.push(Container.ObjectKey);
      state = State.KeyOrObjectEnd;
      if (stack.length > maxDepth) return invalid(c, 'exceeded max depth');
    } else if (c === 0x5b) {
      stack.push(Container.Array);
      state = State.ValueOrArrayEnd;
      if (stack.length > maxDepth) return invalid(c, 'exceeded max depth');
    } else if (c === 0x22) state = State.InString;
    else if (c === 0x2d) state = State.Minus;
    else if (c === 0x30) state = State.Zero;
    else if (c >= 0x31 && c <= 0x39) state = State.Digits;
    else if (LITERALS[c]) {
      literal = LITERALS[c]!;
      literalPos = 1;
      state = State.Literal;
    } else return invalid(c, 'looking for beginning of value');
    return undefined;
  };

  const step = (c: number): string | undefined => {
    switch (state) {
      case State.Value:
        return beginValue(c);
      case State.ValueOrArrayEnd:
        if (isSpace(c)) return undefined;
        return c === 0x5d ? afterValue(c) : beginValue(c);
      case State.KeyOrObjectEnd:
        if (isSpace(c)) return undefined;
        if (c === 0x7d) {
          stack[stack.length - 1] = Container.ObjectValue;
          return afterValue(c);
        }
        state = State.Key;
        return step(c);
      case State.Key:
        if (isSpace(c)) return undefined;
        if (c !== 0x22) return invalid(c, 'looking for beginning of object key string');
        state = State.InString;
        return undefined;
      case State.AfterValue:
      case State.AfterTop:
        return afterValue(c);
      case State.InString:
        if (c === 0x22) state = State.AfterValue;
        else if (c === 0x5c) state = State.StringEscape;
        else if (c < 0x20) return invalid(c, 'in string literal');
        return undefined;
      case State.StringEscape:
        if (c === 0x75) {
          state = State.UnicodeEscape;
          hexLeft = 4;
        } else if ('bfnrt\\/"'.includes(String.fromCharCode(c))) state = State.InString;
        else return invalid(c, 'in string escape code');
        return undefined;
      case State.UnicodeEscape:
        if (!isHex(c)) return invalid(c, 'in \\u hexadecimal character escape');
        if (--hexLeft === 0) state = State.InString;
        return undefined;
      case State.Minus:
        if (c === 0x30) state = State.Zero;
        else if (c >= 0x31 && c <= 0x39) state = State.Digits;
        else return invalid(c, 'in numeric literal');
        return undefined;
      case State.Digits:
        if (isDigit(c)) return undefined;
        return afterInteger(c);
      case State.Zero:
        return afterInteger(c);
      case State.DecimalPoint:
        if (!isDigit(c)) return invalid(c, 'after decimal point in numeric literal');
        state = State.Fraction;
        return undefined;
      case State.Fraction:
        if (isDigit(c)) return undefined;
        if (c === 0x65 || c === 0x45) {
          state = State.Exponent;
          return undefined;
        }
        return afterValue(c);
      case State.Exponent:
        if (c === 0x2b || c === 0x2d) {
          state = State.ExponentSign;
          return undefined;
        }
        state = State.ExponentSign;
        return step(c);
      case State.ExponentSign:
        if (!isDigit(c)) return invalid(c, 'in exponent of numeric literal');
        state = State.ExponentDigits;
        return undefined;
      case State.ExponentDigits:
        return isDigit(c) ? undefined : afterValue(c);
      case State.Literal: {
        const want = literal.charCodeAt(literalPos);
        if (c !== want) return invalid(c, `in literal ${literal} (expecting ${goQuoteByte(want)})`);
        if (++literalPos === literal.length) state = State.AfterValue;
        return undefined;
      }
    }
  };

  const afterInteger = (c: number): string | undefined => {
    if (c === 0x2e) state = State.DecimalPoint;
    else if (c === 0x65 || c === 0x45) state = State.Exponent;
    else return afterValue(c);
    return undefined;
  };

  for (const c of bytes) {
    const err = step(c);
    if (err) return err;
  }
  if (done) return undefined;
  // A space ends a number or literal at the end of input, or shows what is still missing.
  const err = step(0x20);
  if (err) return err;
  return done ? undefined : 'unexpected end of JSON input';
}

/** The JSON kind Go names in `cannot unmarshal <kind> into ...`. */
export function goJsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

/** The anonymous struct Kubernetes' JSON decoder reads a body's type fields into, as Go prints its type. */
const TYPE_META_STRUCT = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/**
 * The error Kubernetes' JSON decoder gives when reading a well-formed document's type fields
 * (`apiVersion`, `kind`, matched without regard to case as Go does), or undefined. `null`
 * documents and fields read as empty.
 */
export function typeMetaError(value: unknown): string | undefined {
  const prefix = "couldn't get version/kind; json parse error: ";
  if (value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    return `${prefix}json: cannot unmarshal ${goJsonKind(value)} into Go value of type ${TYPE_META_STRUCT}`;
  }
  let apiVersion = '';
  for (const [key, v] of Object.entries(value)) {
    const field = key === 'apiVersion' || key === 'kind' ? key : key.toLowerCase() === 'apiversion' ? 'apiVersion' : key.toLowerCase() === 'kind' ? 'kind' : undefined;
    if (field === undefined || v === null) continue;
    if (typeof v !== 'string') return `${prefix}json: cannot unmarshal ${goJsonKind(v)} into Go struct field .${field} of type string`;
    if (field === 'apiVersion') apiVersion = v;
  }
  if (apiVersion.split('/').length > 2) return `unexpected GroupVersion string: ${apiVersion}`;
  return undefined;
}
