// Manifests from files: a file, or a directory of `.yaml`, `.yml` and `.json` files (not
// recursive, in name order, as envtest reads CRDDirectoryPaths), each holding one or more
// documents. Every failure names the file.
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { isPlainObject } from '../apimachinery/types.js';

const EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

export interface Manifest {
  /** The file it came from, for messages. */
  file: string;
  object: Record<string, unknown>;
}

async function filesOf(path: string, option: string): Promise<string[]> {
  const abs = resolve(path);
  let info;
  try {
    info = await stat(abs);
  } catch (e) {
    throw new Error(`startApiServer: option "${option}": cannot read ${abs}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!info.isDirectory()) return [abs];
  const names = (await readdir(abs)).filter((n) => EXTENSIONS.has(extname(n).toLowerCase())).sort();
  return names.map((n) => join(abs, n));
}

/** The documents of one file's text; `null` documents (a lone `---`) are skipped. */
export function parseManifests(file: string, text: string): Manifest[] {
  const out: Manifest[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]!.message}`);
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) continue;
    // A List (kubectl's output of several objects) stands for its items.
    if (isPlainObject(value) && typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items)) {
      for (const item of value.items) {
        if (!isPlainObject(item)) throw new Error(`${file}: an item of the ${value.kind} is not an object`);
        out.push({ file, object: item });
      }
      continue;
    }
    if (!isPlainObject(value)) throw new Error(`${file}: a document is not an object`);
    out.push({ file, object: value });
  }
  return out;
}

/** Reads the files and directories in order; `option` names the option in messages. */
export async function readManifests(paths: string[], option: string): Promise<Manifest[]> {
  const out: Manifest[] = [];
  for (const path of paths) {
    for (const file of await filesOf(path, option)) {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (e) {
        throw new Error(`startApiServer: option "${option}": cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
      }
      try {
        out.push(...parseManifests(file, text));
      } catch (e) {
        throw new Error(`startApiServer: option "${option}": ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }
  return out;
}
