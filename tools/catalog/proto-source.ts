// Reads message and field declarations from a proto2 `generated.proto` file, which is
// where the protobuf field types, labels and map entries of the API types are declared.

import type { ProtobufField } from '../../src/schema/catalog-types.js';

export interface ProtoFile {
  package: string;
  /** Message name (unqualified) to fields by number. */
  messages: Map<string, Map<number, ProtobufField>>;
}

/** Qualifies a message reference relative to the file's package. */
function qualify(type: string, pkg: string): string {
  const scalars = new Set(['string', 'bytes', 'bool', 'int32', 'int64', 'uint32', 'uint64', 'double', 'float', 'sint32', 'sint64', 'fixed32', 'fixed64', 'sfixed32', 'sfixed64']);
  if (scalars.has(type)) return type;
  if (type.startsWith('.')) return type.slice(1);
  return type.includes('.') ? type : `${pkg}.${type}`;
}

export function readProtoFile(source: string): ProtoFile {
  const pkg = /^package\s+([\w.]+)\s*;/m.exec(source)?.[1] ?? '';
  const file: ProtoFile = { package: pkg, messages: new Map() };
  const lines = source.split('\n');
  let current: Map<number, ProtobufField> | undefined;
  for (const raw of lines) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (!line) continue;
    let m: RegExpExecArray | null;
    if ((m = /^message\s+(\w+)\s*\{/.exec(line))) {
      current = new Map();
      file.messages.set(m[1], current);
      if (line.endsWith('}')) current = undefined;
    } else if (line === '}') {
      current = undefined;
    } else if (current && (m = /^(optional|repeated|required)\s+([\w.]+)\s+(\w+)\s*=\s*(\d+)\s*(\[[^\]]*\])?\s*;/.exec(line))) {
      const f: ProtobufField = {
        number: Number(m[4]),
        type: qualify(m[2], pkg),
        label: m[1] === 'repeated' ? 'repeated' : 'optional',
      };
      if (m[5] && /packed\s*=\s*true/.test(m[5])) f.packed = true;
      current.set(f.number, f);
    } else if (current && (m = /^map\s*<\s*([\w.]+)\s*,\s*([\w.]+)\s*>\s+(\w+)\s*=\s*(\d+)\s*;/.exec(line))) {
      current.set(Number(m[4]), {
        number: Number(m[4]),
        type: 'map',
        label: 'repeated',
        mapEntry: { key: qualify(m[1], pkg), value: qualify(m[2], pkg) },
      });
    }
  }
  return file;
}
