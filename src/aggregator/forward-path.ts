// The path an aggregated request is forwarded with: exactly the segments it was authorized
// by (split on '/', each decoded, as the request info reads them), each encoded again on its
// own. Nothing is left for a URL parser to reinterpret: a '\' or an encoded '/' inside a
// segment stays inside it, and '.' or '..' segments are refused rather than resolved.
import { escapePath } from '../proxy/location.js';

/** The re-encoded path, or undefined when a segment does not decode or is a dot segment. */
export function forwardedPath(rawPathname: string): string | undefined {
  const out: string[] = [];
  for (const raw of rawPathname.split('/')) {
    let segment: string;
    try {
      segment = raw.includes('%') ? decodeURIComponent(raw) : raw;
    } catch {
      return undefined;
    }
    if (segment === '.' || segment === '..') return undefined;
    out.push(escapePath(segment).replace(/\//g, '%2F'));
  }
  return out.join('/');
}

/**
 * The upstream URL for `path` on `base` (scheme, host and port), with the check that the URL
 * parser kept the path as given; undefined when it did not.
 */
export function upstreamURL(base: string, path: string, rawQuery: string): URL | undefined {
  const url = new URL(`${base}${path}${rawQuery ? `?${rawQuery}` : ''}`);
  return url.pathname === path ? url : undefined;
}
