// Finds Debian's Chromium for the console's browser tests and its screenshot script.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

const NAMES = ['chromium', 'chromium-browser'];

/** The Chromium executable on the PATH (or `CHROMIUM_PATH`), or undefined. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = env.CHROMIUM_PATH ? [env.CHROMIUM_PATH] : (env.PATH ?? '').split(delimiter).flatMap((dir) => NAMES.map((n) => join(dir, n)));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // not there
    }
  }
  return undefined;
}
