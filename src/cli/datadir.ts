// The data directory is bound to the naming flavor it was created with: stored objects
// carry the flavor's group names, so a directory of the other flavor is refused.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Flavor } from '../naming/index.js';

class DataDirError extends Error {}

const FLAVOR_FILE = 'flavor';

export async function prepareDataDir(dir: string, flavor: Flavor): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, FLAVOR_FILE);
  if (!existsSync(file)) {
    await writeFile(file, `${flavor}\n`);
    return;
  }
  const recorded = (await readFile(file, 'utf8')).trim();
  if (recorded !== flavor) {
    throw new DataDirError(
      `the data directory was created with --compat ${recorded} and cannot be served with --compat ${flavor}: ` +
        `start with --compat ${recorded}, or choose another --data-dir`,
    );
  }
}

/** The flavor the data directory was created with; undefined when it has none yet. */
export function recordedFlavor(dir: string): string | undefined {
  try {
    return readFileSync(join(dir, FLAVOR_FILE), 'utf8').trim();
  } catch {
    return undefined;
  }
}
