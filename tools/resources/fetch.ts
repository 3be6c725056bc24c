// Fetches the surface generator's input (`api-resources-1.27.json`, the reference list of the
// Kubernetes 1.27 API surface) into `tools/resources/input/`, checked before it is written.
//
// Usage: npm run surface:fetch -- --from <dir>    (a directory holding the file)
//        npm run surface:fetch -- --url <url>     (the file served over HTTP(S))
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { INPUT_FILE, INPUT_PATH, validate } from './input.js';

/** The reference list is some 60 KB; anything far larger is not it. */
const MAX_BYTES = 8 << 20;

async function download(url: string): Promise<string> {
  const res = await fetch(url, { signal: AbortSignal.timeout(60_000) });
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${res.statusText}`);
  const body = await res.arrayBuffer();
  if (body.byteLength > MAX_BYTES) throw new Error(`GET ${url}: more than ${MAX_BYTES} bytes`);
  return new TextDecoder('utf-8', { fatal: true }).decode(body);
}

async function main(argv: string[]): Promise<void> {
  const [flag, value] = argv;
  let text: string;
  if (flag === '--from' && value && argv.length === 2) text = readFileSync(join(resolve(value), INPUT_FILE), 'utf8');
  else if (flag === '--url' && value && argv.length === 2) text = await download(value);
  else {
    process.stderr.write(`usage: surface:fetch -- --from <dir holding ${INPUT_FILE}> | --url <url of ${INPUT_FILE}>\n`);
    process.exit(2);
  }
  const rows = validate(JSON.parse(text));
  mkdirSync(dirname(INPUT_PATH), { recursive: true });
  writeFileSync(INPUT_PATH, text);
  process.stdout.write(`fetched ${rows.length} resources to ${INPUT_PATH}\n`);
}

await main(process.argv.slice(2));
