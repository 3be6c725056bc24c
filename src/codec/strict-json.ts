// A JSON reader that also reports duplicate object keys, which JSON.parse silently
// resolves (the last one wins, as in Go). The value comes from JSON.parse, which is native
// and fast; a second, allocation-light scan over the text finds the duplicates. Strings
// are skipped with indexOf, so long values (ConfigMap data) cost little. Callers pay for
// the scan only when field validation asks for it.

interface ParsedJson {
  value: unknown;
  /** Paths of repeated keys in document order, as `metadata.name` or `spec.containers[0].image`. */
  duplicates: string[];
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** Characters the scan acts on; everything else (whitespace, numbers, literals) is skipped. */
const STRUCTURAL = new Uint8Array(0x7e);
for (const c of [QUOTE, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET, COMMA, COLON]) STRUCTURAL[c] = 1;

/** Above this many keys an object's keys move from an array to a Set. */
const SMALL_OBJECT = 12;

interface Frame {
  array: boolean;
  /** Key of this container in its parent object, or its index in the parent array. */
  name: string | number | undefined;
  keys: string[] | Set<string> | undefined;
  /** Current element index (arrays) or the key being read (objects). */
  index: number;
  key: string;
}

/** Parses JSON text; throws SyntaxError as JSON.parse does. */
export function parseJsonWithDuplicates(text: string): ParsedJson {
  const value: unknown = JSON.parse(text);
  return { value, duplicates: findDuplicateKeys(text) };
}

/** Duplicate key paths of well-formed JSON text (call after JSON.parse accepted it). */
export function findDuplicateKeys(text: string): string[] {
  const duplicates: string[] = [];
  const stack: Frame[] = [];
  let top: Frame | undefined;
  let expectKey = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7d || STRUCTURAL[c] === 0) continue;
    if (c === QUOTE) {
      const start = i + 1;
      let end = text.indexOf('"', start);
      let escaped = false;
      // An escaped quote is preceded by an odd run of backslashes.
      while (text.charCodeAt(end - 1) === BACKSLASH) {
        let b = end - 1;
        while (text.charCodeAt(b) === BACKSLASH) b--;
        if ((end - 1 - b) % 2 === 0) break;
        escaped = true;
        end = text.indexOf('"', end + 1);
      }
      if (expectKey && top) {
        let key = text.slice(start, end);
        if (escaped || key.includes('\\')) key = JSON.parse(text.slice(start - 1, end + 1)) as string;
        recordKey(top, key, stack, duplicates);
        expectKey = false;
      }
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const name = top ? (top.array ? top.index : top.key) : undefined;
      top = { array: c === OPEN_BRACKET, name, keys: undefined, index: 0, key: '' };
      stack.push(top);
      expectKey = c === OPEN_BRACE;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      stack.pop();
      top = stack[stack.length - 1];
      expectKey = false;
    } else if (c === COMMA) {
      if (top) {
        if (top.array) top.index++;
        else expectKey = true;
      }
    } else if (c === COLON) {
      expectKey = false;
    }
  }
  return duplicates;
}

function recordKey(frame: Frame, key: string, stack: Frame[], duplicates: string[]): void {
  frame.key = key;
  let keys = frame.keys;
  if (keys === undefined) {
    frame.keys = [key];
    return;
  }
  let seen: boolean;
  if (Array.isArray(keys)) {
    seen = keys.includes(key);
    if (!seen) {
      keys.push(key);
      if (keys.length > SMALL_OBJECT) frame.keys = keys = new Set(keys);
    }
  } else {
    seen = keys.has(key);
    if (!seen) keys.add(key);
  }
  if (seen) duplicates.push(pathOf(stack, key));
}

function pathOf(stack: Frame[], key: string): string {
  let path = '';
  // stack[0] is the root; each later frame is named within its parent.
  for (let d = 1; d < stack.length; d++) path = appendSegment(path, stack[d].name);
  return appendSegment(path, key);
}

function appendSegment(path: string, segment: string | number | undefined): string {
  if (segment === undefined) return path;
  if (typeof segment === 'number') return `${path}[${segment}]`;
  return path ? `${path}.${segment}` : segment;
}
