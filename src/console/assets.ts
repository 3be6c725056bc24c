// The console's built files (the browser bundle under dist/console-app), read into memory
// once at start. Requests are answered from this map only: a request path is a key or it
// is nothing, so no path a client sends ever reaches the file system.
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder `npm run build` writes the browser bundle into, beside dist/src and dist/bundle. */
export const BUNDLE_FOLDER = 'console-app';

/** Types of the files the bundle holds; files of other types are not served. */
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.map': 'application/json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** The bundle is a few hundred KiB; a folder much larger than this is not the bundle. */
const MAX_BUNDLE_BYTES = 16 * 1024 * 1024;
const MAX_FILES = 256;

export interface Asset {
  body: Buffer;
  contentType: string;
  etag: string;
}

export type ConsoleAssets = ReadonlyMap<string, Asset>;

export function contentTypeOf(name: string): string | undefined {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? undefined : CONTENT_TYPES[name.slice(dot).toLowerCase()];
}

/** Reads `dir` (regular files only, symbolic links skipped) into a map keyed by relative path with '/'. */
export function readAssets(dir: string): ConsoleAssets {
  const assets = new Map<string, Asset>();
  let total = 0;
  const walk = (folder: string, prefix: string): void => {
    for (const name of readdirSync(folder).sort()) {
      const full = join(folder, name);
      const st = lstatSync(full);
      if (st.isDirectory()) {
        walk(full, `${prefix}${name}/`);
        continue;
      }
      if (!st.isFile()) continue;
      const contentType = contentTypeOf(name);
      if (!contentType) continue;
      total += st.size;
      if (total > MAX_BUNDLE_BYTES || assets.size >= MAX_FILES) throw new Error(`${dir} is larger than a console bundle (over ${MAX_FILES} files or ${MAX_BUNDLE_BYTES} bytes)`);
      const body = readFileSync(full);
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
      assets.set(`${prefix}${name}`, { body, contentType, etag });
    }
  };
  walk(dir, '');
  if (!assets.has('index.html')) throw new Error(`${dir} has no index.html`);
  return assets;
}

/**
 * The built bundle's folder: the nearest `console-app/` above this module that holds an
 * index.html (dist/console-app from dist/src/console and from dist/bundle alike).
 */
export function findBundleDir(from: string = dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, BUNDLE_FOLDER);
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}
