// Static files served without credentials (the web console's bundle at /ui/): they hold no
// data, and the browser cannot present a bearer token when it loads a page. Answered before
// authentication and the request info; everything the files then ask for is an API request
// that goes through the whole chain with the user's token.
import { headerValue, type ServerResponse } from '../http.js';
import type { Filter } from './chain.js';

export interface StaticFiles {
  /** True when the path is this site's (then `serve` answers it, whatever it is). */
  owns(path: string): boolean;
  serve(req: { method: string; path: string; ifNoneMatch?: string }, res: ServerResponse): void;
}

export function withStaticFiles(site: StaticFiles | undefined): Filter {
  if (!site) return (next) => next;
  return (next) => (scope) => {
    const raw = scope.req.url ?? '/';
    const q = raw.indexOf('?');
    const path = q < 0 ? raw : raw.slice(0, q);
    if (!site.owns(path)) return next(scope);
    const ifNoneMatch = headerValue(scope.req, 'if-none-match');
    site.serve({ method: scope.method, path, ...(ifNoneMatch !== undefined ? { ifNoneMatch } : {}) }, scope.res);
  };
}
