// The log backend (`--audit-log-path`): one line per event, JSON or legacy, to standard out
// or to a file that rotates as lumberjack rotates kube-apiserver's: past `maxSize` bytes the
// file is renamed `<name>-<UTC time 2006-01-02T15-04-05.000><ext>` and a new one begun;
// backups beyond `maxBackups` or older than `maxAgeDays` are removed, the rest gzipped when
// asked. Lines are written at the end of the event-loop turn that produced them, in one
// write for all of that turn's requests (a write per line cost more than the rest of the
// audit together).
import { closeSync, createReadStream, createWriteStream, existsSync, fstatSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Clock } from '../apimachinery/clock.js';
import type { AuditBackend, EventSnapshot } from './backend.js';
import type { AuditMetrics } from './metrics.js';

export type LogFormat = 'json' | 'legacy';
export const LOG_FORMATS: readonly LogFormat[] = ['legacy', 'json'];

/** Where lines go. */
export interface LineWriter {
  write(text: string): void;
  close(): Promise<void>;
}

export class StdoutWriter implements LineWriter {
  write(text: string): void {
    process.stdout.write(text);
  }
  async close(): Promise<void> {}
}

export interface RotationOptions {
  /** Rotate before a write would pass this many bytes (lumberjack: 100 MB when 0). */
  maxBytes: number;
  /** Old files kept; 0 keeps all. */
  maxBackups: number;
  /** Days old files are kept; 0 keeps them regardless of age. */
  maxAgeDays: number;
  compress: boolean;
}

const BACKUP_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/;

/** lumberjack's backup timestamp: `2006-01-02T15-04-05.000`, UTC. */
export function backupTimestamp(d: Date): string {
  return d.toISOString().slice(0, 23).replace(/:/g, '-');
}

/** A file written synchronously (the event loop waits for the page cache, not the disk). */
export class RotatingFile implements LineWriter {
  private fd: number;
  private size: number;
  private pending: { text: string; bytes: number }[] = [];
  private flushing: Promise<void> | undefined;
  private readonly prefix: string;
  private readonly ext: string;
  private readonly dir: string;
  private milling: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string,
    private readonly opts: RotationOptions,
    private readonly clock: Clock,
    /** Rotation and compression failures (`lines` 0), and lines that could not be written. */
    private readonly onError: (err: Error, lines: number) => void = () => {},
  ) {
    this.dir = dirname(path);
    this.ext = extname(path);
    this.prefix = basename(path, this.ext);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.fd = openSync(path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  private get max(): number {
    return this.opts.maxBytes > 0 ? this.opts.maxBytes : 100 * 1024 * 1024;
  }

  write(text: string): void {
    const bytes = Buffer.byteLength(text);
    if (bytes > this.max) throw new Error(`write length ${bytes} exceeds maximum file size ${this.max}`);
    this.pending.push({ text, bytes });
    this.flushing ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        this.flush();
        resolve();
      }),
    );
  }

  /** Writes the pending lines, rotating between them where the size limit falls. */
  private flush(): void {
    this.flushing = undefined;
    const lines = this.pending;
    this.pending = [];
    let chunk = '';
    let chunkBytes = 0;
    let written = 0;
    try {
      for (let i = 0; i < lines.length; i++) {
        const { text, bytes } = lines[i]!;
        if (this.size + chunkBytes + bytes > this.max) {
          if (chunk) writeSync(this.fd, chunk);
          written = i;
          this.size += chunkBytes;
          chunk = '';
          chunkBytes = 0;
          this.rotate();
        }
        chunk += text;
        chunkBytes += bytes;
      }
      if (chunk) writeSync(this.fd, chunk);
      this.size += chunkBytes;
    } catch (e) {
      this.onError(e instanceof Error ? e : new Error(String(e)), lines.length - written);
    }
  }

  private rotate(): void {
    closeSync(this.fd);
    // Several rotations within a millisecond (one flush of large lines) take the next free name.
    let at = this.clock.now().getTime();
    let backup = join(this.dir, `${this.prefix}-${backupTimestamp(new Date(at))}${this.ext}`);
    while (existsSync(backup) || existsSync(`${backup}.gz`)) backup = join(this.dir, `${this.prefix}-${backupTimestamp(new Date(++at))}${this.ext}`);
    renameSync(this.path, backup);
    this.fd = openSync(this.path, 'a', 0o600);
    this.size = 0;
    this.milling = this.milling.then(() => this.mill()).catch((e: unknown) => this.onError(e instanceof Error ? e : new Error(String(e)), 0));
  }

  /** The backups of this file, newest first. */
  backups(): { name: string; time: number; compressed: boolean }[] {
    const out: { name: string; time: number; compressed: boolean }[] = [];
    for (const name of readdirSync(this.dir)) {
      const compressed = name.endsWith('.gz');
      const plain = compressed ? name.slice(0, -3) : name;
      if (!plain.startsWith(`${this.prefix}-`) || !plain.endsWith(this.ext)) continue;
      const stamp = plain.slice(this.prefix.length + 1, plain.length - this.ext.length);
      const m = BACKUP_TIME.exec(stamp);
      if (!m) continue;
      const [, y, mo, d, h, mi, s, ms] = m.map(Number) as number[];
      out.push({ name, time: Date.UTC(y!, mo! - 1, d, h, mi, s, ms), compressed });
    }
    return out.sort((a, b) => b.time - a.time);
  }

  private async mill(): Promise<void> {
    let files = this.backups();
    const remove = new Set<string>();
    if (this.opts.maxBackups > 0 && files.length > this.opts.maxBackups) {
      // A file and its compressed form count once, as lumberjack counts them.
      const kept = new Set<number>();
      for (const f of files) {
        if (kept.has(f.time) || kept.size < this.opts.maxBackups) kept.add(f.time);
        else remove.add(f.name);
      }
    }
    if (this.opts.maxAgeDays > 0) {
      const cutoff = this.clock.now().getTime() - this.opts.maxAgeDays * 24 * 3_600_000;
      for (const f of files) if (f.time < cutoff) remove.add(f.name);
    }
    for (const name of remove) unlinkQuiet(join(this.dir, name));
    files = files.filter((f) => !remove.has(f.name));
    if (!this.opts.compress) return;
    for (const f of files) {
      if (f.compressed || files.some((g) => g.compressed && g.time === f.time)) continue;
      const src = join(this.dir, f.name);
      await pipeline(createReadStream(src), createGzip(), createWriteStream(`${src}.gz`, { mode: statSync(src).mode & 0o777 }));
      unlinkQuiet(src);
    }
  }

  /** Waits for pending lines, and the removal and compression of old files, to finish. */
  async settled(): Promise<void> {
    await this.flushing;
    await this.milling;
  }

  async close(): Promise<void> {
    this.flush();
    await this.milling;
    closeSync(this.fd);
  }
}

function unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

export class LogBackend implements AuditBackend {
  readonly name = 'log';
  readonly consumesAtOnce = true;
  constructor(
    private readonly out: LineWriter,
    private readonly format: LogFormat,
    private readonly metrics: AuditMetrics,
    private readonly apiVersion: string,
    private readonly log?: (msg: string) => void,
  ) {}

  processEvents(events: EventSnapshot[]): boolean {
    let ok = true;
    for (const ev of events) {
      const line = this.format === 'legacy' ? `${ev.legacy()}\n` : `${ev.toJSON(this.apiVersion)}\n`;
      try {
        this.out.write(line);
      } catch (e) {
        ok = false;
        this.metrics.error(this.name, 1);
        this.log?.(`Error in audit plugin 'log' affecting 1 audit events: ${e instanceof Error ? e.message : String(e)}\nImpacted events:\n${ev.legacy()}`);
      }
    }
    return ok;
  }

  shutdown(): Promise<void> {
    return this.out.close();
  }
}
