// Serves the console's static files at /ui/. They hold no data (the browser asks the API
// for everything, with the user's bearer token), so they are answered without credentials,
// before authentication. Every answer carries a strict Content Security Policy; none sets
// a cookie.
import type { ConsoleAssets } from './assets.js';

/** The path the console is served under. */
export const CONSOLE_PATH = '/ui';

export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The headers every /ui/ answer carries, errors included. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** Longer request paths are not the bundle's (its names are short). */
const MAX_PATH_LENGTH = 256;

/**
 * A file name the bundle may hold: segments of letters, digits, '.', '_' and '-', each
 * starting with a letter or digit. Nothing percent-encoded, no backslash, no '..', no empty
 * segment: such paths are answered 404 without being decoded.
 */
const ASSET_PATH = /^[A-Za-z0-9][A-Za-z0-9._-]*(?:\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/** The response surface the handler writes to (Node's HTTP/1.1 and HTTP/2 compatibility responses). */
export interface ConsoleResponse {
  statusCode: number;
  setHeader(name: string, value: string | number | string[]): unknown;
  removeHeader(name: string): void;
  end(chunk?: Uint8Array | string): unknown;
}

export interface ConsoleRequest {
  method: string;
  /** The request target's path as sent, undecoded, without the query. */
  path: string;
  ifNoneMatch?: string;
}

/** True when the path is the console's (`/ui` or below `/ui/`). */
export function isConsolePath(path: string): boolean {
  return path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`);
}

/** Resolves a console path to the bundle key it names, or undefined when it names none. */
export function assetKey(path: string): string | undefined {
  if (!path.startsWith(`${CONSOLE_PATH}/`) || path.length > MAX_PATH_LENGTH) return undefined;
  const rest = path.slice(CONSOLE_PATH.length + 1);
  if (rest === '') return 'index.html';
  return ASSET_PATH.test(rest) && !rest.split('/').includes('..') ? rest : undefined;
}

export function serveConsole(assets: ConsoleAssets, req: ConsoleRequest, res: ConsoleResponse): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  const plain = (code: number, text: string): void => {
    res.statusCode = code;
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.end(req.method === 'HEAD' ? undefined : text);
  };
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    return plain(405, 'method not allowed\n');
  }
  if (req.path === CONSOLE_PATH) {
    res.statusCode = 301;
    res.setHeader('Location', `${CONSOLE_PATH}/`);
    res.setHeader('Cache-Control', 'no-store');
    res.end();
    return;
  }
  const key = assetKey(req.path);
  const asset = key === undefined ? undefined : assets.get(key);
  if (!asset) return plain(404, '404 page not found\n');
  // The names are not content-hashed: the browser revalidates every time (a 304 is cheap).
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('ETag', asset.etag);
  if (req.ifNoneMatch !== undefined && req.ifNoneMatch.split(',').some((t) => t.trim() === asset.etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.statusCode = 200;
  res.setHeader('Content-Type', asset.contentType);
  res.setHeader('Content-Length', asset.body.length);
  res.end(req.method === 'HEAD' ? undefined : asset.body);
}
