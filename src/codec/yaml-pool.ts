// Large YAML documents are read on worker threads: the YAML library reads about a megabyte
// a second, and on the event loop one large body would stall every other request (health
// checks included). A small pool, created on first use, with a bounded queue.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ApiError, tooManyRequests } from '../apimachinery/errors.js';
import { parseJsonText } from './json.js';
import { looksLikeJson, readYaml, YamlSyntaxError } from './yaml.js';

/**
 * Documents longer than this are read on a worker; at about a megabyte a second, a shorter
 * one holds the event loop for no more than some 16 ms.
 */
export const OFFLOAD_THRESHOLD = 16 * 1024;

export interface YamlJob {
  id: number;
  text: string;
}

export type YamlAnswer =
  | { id: number; json: Uint8Array }
  | { id: number; error: { message: string; syntax: boolean; status: { code: number; reason: string } | undefined } };

/** Documents waiting for a worker beyond this many are refused with 429 rather than queued without end. */
const MAX_QUEUED = 32;
/** A worker that runs out of this much heap fails its document instead of the server. */
const WORKER_HEAP_MB = 512;

interface Pending {
  job: YamlJob;
  resolve: (json: Uint8Array) => void;
  reject: (e: Error) => void;
}

class YamlPool {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Pending>();
  private readonly queue: Pending[] = [];
  private workers = 0;
  private nextId = 1;

  constructor(private readonly size: number) {}

  run(text: string): Promise<Uint8Array> {
    if (this.queue.length >= MAX_QUEUED) {
      return Promise.reject(tooManyRequests('too many large YAML documents are being decoded, please try again later', 1));
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ job: { id: this.nextId++, text }, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let w = this.idle.pop();
      if (w === undefined && this.workers < this.size) w = this.spawn();
      if (w === undefined) return;
      const p = this.queue.shift()!;
      this.busy.set(w, p);
      // A worker with a document keeps the process alive until it answers; an idle one does not.
      w.ref();
      w.postMessage(p.job);
    }
  }

  private spawn(): Worker {
    const w = new Worker(new URL('./yaml-worker.js', import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    this.workers++;
    w.on('message', (a: YamlAnswer) => {
      const p = this.busy.get(w);
      this.busy.delete(w);
      this.idle.push(w);
      w.unref();
      if (p !== undefined) {
        if ('json' in a) p.resolve(a.json);
        else p.reject(rebuild(a.error));
      }
      this.dispatch();
    });
    const lost = (why: string): void => {
      const p = this.busy.get(w);
      this.busy.delete(w);
      const i = this.idle.indexOf(w);
      if (i >= 0) this.idle.splice(i, 1);
      this.workers--;
      p?.reject(new YamlSyntaxError(`the document could not be read within the server's limits (${why})`));
      this.dispatch();
    };
    w.on('error', (e) => lost(e.message));
    w.on('exit', (code) => {
      if (this.busy.has(w) || this.idle.includes(w)) lost(`exit code ${code}`);
    });
    return w;
  }
}

function rebuild(e: { message: string; syntax: boolean; status: { code: number; reason: string } | undefined }): Error {
  if (e.syntax) return new YamlSyntaxError(e.message);
  if (e.status) return new ApiError(e.status.code, e.status.reason, e.message);
  return new Error(e.message);
}

let pool: YamlPool | undefined;

/** Reads a document on the pool; answers its JSON text. */
function readYamlOnPool(text: string): Promise<Uint8Array> {
  pool ??= new YamlPool(Math.max(1, Math.min(2, availableParallelism() - 1)));
  return pool.run(text);
}

const textDecoder = new TextDecoder();

/**
 * `readYaml`, with documents above the threshold read on the pool. The JSON reader (fast,
 * and what most clients send) still runs here first.
 */
export async function readYamlAsync(s: string): Promise<unknown> {
  if (s.length <= OFFLOAD_THRESHOLD) return readYaml(s);
  // The depth checks run on the worker (and in the JSON reader), not twice here.
  if (looksLikeJson(s)) {
    try {
      return parseJsonText(s);
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e;
    }
  }
  const json = await readYamlOnPool(s);
  // Written by the worker from a value already checked for depth, its strings well-formed.
  return parseJsonText(textDecoder.decode(json), { checkDepth: false, trusted: true });
}
