// Where a committed data file (`src/<folder>/<name>.json`) is at run time. Compiled code runs
// from an output folder (`dist/src/<folder>`, or the flat `dist/bundle`), so look beside the
// module first, then up the tree for the source copy the package ships.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The path of `src/<folder>/<file>` as seen from the module at `moduleUrl`. */
export function dataFilePath(moduleUrl: string, folder: string, file: string): string {
  const here = dirname(fileURLToPath(moduleUrl));
  const beside = join(here, file);
  if (existsSync(beside)) return beside;
  for (let dir = here; ; ) {
    const candidate = join(dir, 'src', folder, file);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`data file ${file} not found above ${here}`);
    dir = parent;
  }
}
