// Watch over HTTP: a chunked stream of `{"type","object"}` documents, one flushed per
// event. An error before the first byte is an ordinary HTTP error; after that it is an
// ERROR event carrying the Status, and the stream ends. The stream also ends when the
// client goes away, when timeoutSeconds passes, and when the server shuts down.
import { escapeFieldValue } from '../../apimachinery/fields.js';
import type { KubeObject, WatchEvent } from '../../apimachinery/types.js';
import { negotiateOutput } from '../../codec/negotiate.js';
import { parseIncludeObject, partialObjectMetadata, toTable } from '../../codec/representation.js';
import { sharedFrame, watchFramer } from '../../codec/watch-frame.js';
import type { ListOptions, RESTStore, RequestContext, StoreWatch } from '../../rest/index.js';
import { headerValue, setWarnings, toApiError } from '../http.js';
import { parseListOptions } from './options.js';
import type { HandlerDeps, Routed } from './request.js';
import { tableConvertorOf } from './response.js';
import { abortController } from '../../apimachinery/abort.js';
import { iteratorCursor, onShutdown, WatchPump, type WatchResponse } from './watch-pump.js';

/** The longest watch timeout a timer can hold, in whole seconds. */
export const MAX_WATCH_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/** The Store's watch: events until `ctx.signal` aborts or the Store ends the stream. */
export function watchResources(ctx: RequestContext, store: RESTStore, namespace: string, opts: ListOptions): Promise<StoreWatch> {
  return store.watch!(ctx, namespace, opts);
}

export async function serveWatch(deps: HandlerDeps, { r, ctx, store, namespace: ns }: Routed): Promise<void> {
  const { group, version, kind } = store.definition;
  const choice = negotiateOutput(headerValue(r.req, 'accept'), deps.serializers, 'watch', { kind: { group, version, kind } });
  const opts = parseListOptions(r.query, true);
  if (!r.info.collection) {
    // A watch on one object (the legacy `/watch/.../name` path) is a watch of the
    // collection narrowed to that name.
    const byName = `metadata.name=${escapeFieldValue(r.info.name)}`;
    opts.fieldSelector = opts.fieldSelector ? `${opts.fieldSelector},${byName}` : byName;
  }
  const includeObject = choice.representation.as === 'Table' ? parseIncludeObject(r.query.get('includeObject')) : 'Metadata';
  // Timers hold at most 2^31-1 ms (about 24.8 days); a larger value would fire at once. Kubernetes
  // puts no bound on timeoutSeconds, so a huge one is served as the longest wait a timer has.
  const asked = opts.timeoutSeconds || Math.floor(deps.minRequestTimeoutSeconds * (1 + Math.random()));
  const timeoutSeconds = Math.min(asked, MAX_WATCH_TIMEOUT_SECONDS);

  const ac = new AbortController();
  const stop = (): void => abortController(ac);
  if (r.signal.aborted || deps.shutdownSignal.aborted) abortController(ac);
  r.signal.addEventListener('abort', stop, { once: true });
  const unlisten = onShutdown(deps.shutdownSignal, stop);
  const timer = setTimeout(stop, timeoutSeconds * 1000);
  timer.unref?.();
  const cleanup = (): void => {
    clearTimeout(timer);
    r.signal.removeEventListener('abort', stop);
    unlisten();
    abortController(ac);
  };

  let events: StoreWatch;
  try {
    events = await watchResources({ ...ctx, signal: ac.signal }, store, ns, { ...opts, timeoutSeconds });
  } catch (err) {
    cleanup();
    throw err;
  }

  const res = r.res;
  const framer = watchFramer(choice.serializer);
  const rep = choice.representation;
  const frameKey = `${choice.serializer.mediaType} ${choice.contentType} ${rep.as}${rep.as === 'Object' ? '' : ` ${rep.version}`}`;
  const convertor = tableConvertorOf(store);
  let firstTable = true;
  const transform = (ev: WatchEvent): unknown => {
    if (ev.type === 'ERROR' || rep.as === 'Object') return ev.object;
    if (rep.as === 'Table') {
      const rows: KubeObject[] = ev.type === 'BOOKMARK' ? [] : [ev.object];
      const t = toTable(rows, { resourceVersion: ev.object.metadata?.resourceVersion }, convertor, {
        version: rep.version,
        includeObject,
        withColumns: firstTable,
        now: deps.now?.() ?? new Date(),
      });
      firstTable = false;
      return t;
    }
    return partialObjectMetadata(ev.object, rep.version);
  };

  res.statusCode = 200;
  // As Kubernetes labels watch streams: JSON plain, other formats with `stream=watch`.
  res.setHeader('Content-Type', choice.serializer.mediaType === 'application/json' ? choice.contentType : `${choice.contentType};stream=watch`);
  setWarnings(res, r.warnings);
  res.flushHeaders?.();
  await new Promise<void>((resolve) => {
    new WatchPump({
      cursor: events.cursor?.() ?? iteratorCursor(events),
      res: res as unknown as WatchResponse,
      signal: ac.signal,
      // Tables are each watcher's own (columns on its first event, ages at its time); the
      // object and its metadata are framed once for every watcher in this encoding.
      frame: (event) =>
        rep.as === 'Table'
          ? framer.frame({ type: event.type, object: transform(event) })
          : sharedFrame(event, frameKey, () => framer.frame({ type: event.type, object: transform(event) })),
      errorFrame: (err) => framer.frame({ type: 'ERROR', object: toApiError(err).status }),
      initialized: r.onWatchInitialized,
      done: () => {
        cleanup();
        resolve();
      },
    }).start();
  });
}
