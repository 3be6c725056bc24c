// Reads the facts the catalog needs from Go API type definitions: struct types with their
// fields, struct tags and comment markers, named non-struct types, typed string constants
// (enum values), the package's imports and its GroupName. This is not a Go parser; it
// understands the regular layout that API type files follow.

export interface GoField {
  /** Go field name; empty for an embedded field. */
  goName: string;
  /** The Go type expression as written (`*metav1.Time`, `[]Container`). */
  goType: string;
  tags: Record<string, string>;
  markers: Record<string, string[]>;
}

export interface GoStruct {
  name: string;
  fields: GoField[];
  markers: Record<string, string[]>;
}

export interface GoNamedType {
  name: string;
  /** Underlying type expression (`string`, `map[ResourceName]resource.Quantity`). */
  underlying: string;
  markers: Record<string, string[]>;
}

export interface GoPackage {
  importPath: string;
  groupName?: string;
  structs: Map<string, GoStruct>;
  named: Map<string, GoNamedType>;
  /** Typed string constants: type name to values. */
  constants: Map<string, string[]>;
  /** Import alias to import path, per file merged (aliases are consistent across API files). */
  imports: Map<string, string>;
}

export function emptyPackage(importPath: string): GoPackage {
  return { importPath, structs: new Map(), named: new Map(), constants: new Map(), imports: new Map() };
}

/** `// +listType=map` lines of a comment block, as marker name to values. */
function markersOf(comments: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const c of comments) {
    const m = /^\+([\w:.-]+)(?:=(.*))?$/.exec(c.trim());
    if (!m) continue;
    (out[m[1]] ??= []).push((m[2] ?? '').trim());
  }
  return out;
}

function parseTags(raw: string | undefined): Record<string, string> {
  const tags: Record<string, string> = {};
  if (!raw) return tags;
  const re = /(\w+):"([^"]*)"/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(raw)) !== null) tags[m[1]] = m[2];
  return tags;
}

/** Adds the declarations of one Go source file to the package. */
export function readGoFile(pkg: GoPackage, source: string): void {
  const lines = source.split('\n');
  let comments: string[] = [];
  let i = 0;
  const take = (): string => lines[i++] ?? '';
  while (i < lines.length) {
    const line = take();
    const trimmed = line.trim();
    if (trimmed.startsWith('//')) {
      comments.push(trimmed.replace(/^\/\/\s?/, ''));
      continue;
    }
    if (trimmed === '') {
      // Markers above a blank line still belong to the next declaration (k8s style puts
      // `+genclient` blocks apart), so keep them; plain prose is irrelevant anyway.
      continue;
    }
    if (/^\s/.test(line)) {
      // Top-level declarations start at column 0; indented lines belong to bodies we skip.
      comments = [];
      continue;
    }
    if (trimmed.startsWith('/*')) {
      while (i < lines.length && !lines[i - 1].includes('*/')) take();
      continue;
    }
    let m: RegExpExecArray | null;
    if (trimmed === 'import (') {
      while (i < lines.length) {
        const l = take().trim();
        if (l === ')') break;
        const im = /^(?:(\w+)\s+)?"([^"]+)"/.exec(l);
        if (im) pkg.imports.set(im[1] ?? im[2].split('/').pop()!, im[2]);
      }
    } else if ((m = /^import\s+(?:(\w+)\s+)?"([^"]+)"/.exec(trimmed))) {
      pkg.imports.set(m[1] ?? m[2].split('/').pop()!, m[2]);
    } else if ((m = /^type\s+(\w+)\s+struct\s*\{\s*(\})?/.exec(trimmed))) {
      const st: GoStruct = { name: m[1], fields: [], markers: markersOf(comments) };
      if (!m[2]) readStructBody(st, lines, () => take(), () => i < lines.length);
      pkg.structs.set(st.name, st);
    } else if (trimmed.startsWith('type ') && trimmed.endsWith('{')) {
      skipBlock(lines, () => take(), () => i < lines.length, trimmed);
    } else if ((m = /^type\s+(\w+)\s+(?:=\s*)?([^\s{][^/]*?)\s*(?:\/\/.*)?$/.exec(trimmed))) {
      pkg.named.set(m[1], { name: m[1], underlying: m[2], markers: markersOf(comments) });
    } else if (trimmed === 'const (') {
      while (i < lines.length) {
        const l = take().trim();
        if (l === ')') break;
        const cm = /^\w+\s+(\w+)\s*=\s*"([^"]*)"/.exec(l);
        if (cm) addConstant(pkg, cm[1], cm[2]);
      }
    } else if ((m = /^const\s+(\w+)\s*=\s*"([^"]*)"/.exec(trimmed)) && m[1] === 'GroupName') {
      pkg.groupName = m[2];
    } else if ((m = /^const\s+\w+\s+(\w+)\s*=\s*"([^"]*)"/.exec(trimmed))) {
      addConstant(pkg, m[1], m[2]);
    } else if (/^(func|var)\b/.test(trimmed) && trimmed.endsWith('{')) {
      skipBlock(lines, () => take(), () => i < lines.length, trimmed);
    }
    comments = [];
  }
}

function addConstant(pkg: GoPackage, type: string, value: string): void {
  const list = pkg.constants.get(type) ?? [];
  if (!list.includes(value)) list.push(value);
  pkg.constants.set(type, list);
}

function braceDelta(line: string): number {
  const code = line.replace(/`[^`]*`/g, '').replace(/"(?:\\.|[^"\\])*"/g, '').replace(/\/\/.*$/, '');
  let d = 0;
  for (const ch of code) {
    if (ch === '{') d++;
    else if (ch === '}') d--;
  }
  return d;
}

function skipBlock(lines: string[], take: () => string, more: () => boolean, first: string): void {
  let depth = braceDelta(first);
  while (depth > 0 && more()) depth += braceDelta(take());
}

function readStructBody(st: GoStruct, lines: string[], take: () => string, more: () => boolean): void {
  let comments: string[] = [];
  while (more()) {
    const raw = take();
    const line = raw.trim();
    if (line === '}') return;
    if (line.startsWith('/*')) {
      let l = line;
      while (!l.includes('*/') && more()) l = take();
      continue;
    }
    if (line.startsWith('//')) {
      comments.push(line.replace(/^\/\/\s?/, ''));
      continue;
    }
    if (line === '') {
      comments = [];
      continue;
    }
    const tagMatch = /`([^`]*)`/.exec(line);
    const tags = parseTags(tagMatch?.[1]);
    const decl = line.replace(/`[^`]*`/, '').replace(/\/\/.*$/, '').trim();
    const parts = decl.split(/\s+/);
    let field: GoField;
    if (parts.length === 1) field = { goName: '', goType: parts[0], tags, markers: markersOf(comments) };
    else field = { goName: parts[0], goType: parts.slice(1).join(''), tags, markers: markersOf(comments) };
    if (decl.endsWith('{')) {
      // An anonymous struct: not used by serialized API types; skip its body.
      skipBlock(lines, take, more, decl);
      field.goType = 'interface{}';
    }
    st.fields.push(field);
    comments = [];
  }
}
