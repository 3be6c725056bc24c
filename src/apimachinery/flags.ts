// A small command-line flag set in the style of kube-apiserver's flags: `--name=value` or
// `--name value`, booleans as `--name`, `--name=true|false`, repeatable and comma-separated
// lists. Each module declares the flags it owns; the entry point merges the declarations.

type FlagType = 'string' | 'boolean' | 'int' | 'duration' | 'stringList';

export interface FlagDefinition {
  name: string;
  type: FlagType;
  /** Default value in its parsed form; undefined means unset. */
  default?: string | boolean | number | string[];
  usage: string;
}

type FlagValue = string | boolean | number | string[];

export class FlagError extends Error {}

/** Parsed flags by name. Unset flags without defaults are absent. */
export class ParsedFlags {
  constructor(private readonly values: Map<string, FlagValue>) {}

  has(name: string): boolean {
    return this.values.has(name);
  }

  string(name: string): string | undefined {
    const v = this.values.get(name);
    return typeof v === 'string' ? v : undefined;
  }

  boolean(name: string): boolean | undefined {
    const v = this.values.get(name);
    return typeof v === 'boolean' ? v : undefined;
  }

  /** Integers and durations (durations in milliseconds). */
  number(name: string): number | undefined {
    const v = this.values.get(name);
    return typeof v === 'number' ? v : undefined;
  }

  list(name: string): string[] {
    const v = this.values.get(name);
    return Array.isArray(v) ? v : [];
  }
}

/** Parses a Go duration (`300ms`, `1.5h`, `2m30s`) to milliseconds; a bare number is seconds. */
export function parseDuration(text: string): number {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let pos = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    total += Number(m[1]) * unit[m[2]!]!;
    pos = re.lastIndex;
  }
  if (pos !== text.length || text.length === 0) throw new FlagError(`invalid duration "${text}"`);
  return total;
}

function convert(def: FlagDefinition, raw: string): FlagValue {
  switch (def.type) {
    case 'string':
      return raw;
    case 'boolean':
      if (raw === 'true') return true;
      if (raw === 'false') return false;
      throw new FlagError(`invalid argument "${raw}" for "--${def.name}" flag: expected true or false`);
    case 'int': {
      if (!/^-?\d+$/.test(raw)) throw new FlagError(`invalid argument "${raw}" for "--${def.name}" flag: expected an integer`);
      return Number(raw);
    }
    case 'duration':
      try {
        return parseDuration(raw);
      } catch {
        throw new FlagError(`invalid argument "${raw}" for "--${def.name}" flag: expected a duration`);
      }
    case 'stringList':
      return raw === '' ? [] : raw.split(',');
  }
}

/** Parses `argv` against the definitions. Unknown flags and positional arguments are errors. */
export function parseFlags(argv: string[], defs: FlagDefinition[]): ParsedFlags {
  const byName = new Map(defs.map((d) => [d.name, d]));
  const values = new Map<string, FlagValue>();
  for (const d of defs) if (d.default !== undefined) values.set(d.name, d.default);
  const seenLists = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('-')) throw new FlagError(`unexpected argument "${arg}"`);
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    const def = byName.get(name);
    if (!def) throw new FlagError(`unknown flag: --${name}`);
    let raw: string;
    if (eq >= 0) raw = body.slice(eq + 1);
    else if (def.type === 'boolean') raw = 'true';
    else {
      if (i + 1 >= argv.length) throw new FlagError(`flag needs an argument: --${name}`);
      raw = argv[++i]!;
    }
    const value = convert(def, raw);
    if (def.type === 'stringList') {
      // The first occurrence replaces the default; later ones append (repeatable flags).
      const prev = seenLists.has(name) ? (values.get(name) as string[]) : [];
      values.set(name, [...prev, ...(value as string[])]);
      seenLists.add(name);
    } else values.set(name, value);
  }
  return new ParsedFlags(values);
}

/** `--help` text. */
export function usage(defs: FlagDefinition[]): string {
  return [...defs]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((d) => {
      const dflt = d.default === undefined || (Array.isArray(d.default) && d.default.length === 0) ? '' : ` (default ${String(d.default)})`;
      return `      --${d.name} ${d.type === 'boolean' ? '' : d.type}\n            ${d.usage}${dflt}`;
    })
    .join('\n');
}
