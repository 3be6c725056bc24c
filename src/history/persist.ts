// The object history in the server's store, so that it outlives a restart on SQLite and is
// shared by API servers on etcd. Revisions are written off the request path in batches: one
// key per batch under `/history/batches/` (a key of its own per flush, written once), at most
// every `flushMs` or when a batch reaches BATCH_BYTES, and on stop. A batch key is deleted
// once none of its revisions is kept any more. The compactor only drops superseded versions of
// keys, never a live one, so the watch window does not bound the history; retention does.
// What was recorded in the last `flushMs` before a crash is lost.
import { randomBytes } from 'node:crypto';
import type { Storage } from '../storage/interface.js';
import type { HistoryListener, HistoryStore, RevisionTarget, StoredRevision } from './store.js';

export const HISTORY_PREFIX = '/history/batches/';
/** What one batch key holds at most (below etcd's request limit with room to spare). */
const BATCH_BYTES = 512 * 1024;

interface Line {
  t: RevisionTarget;
  r: Omit<StoredRevision, 'dropped' | 'batch'>;
}

export interface HistoryPersistenceOptions {
  /** How long a recorded revision may wait to be written (ms); 1000 by default. */
  flushMs?: number;
  onError?: (err: unknown) => void;
}

export class HistoryPersistence implements HistoryListener {
  private pending: { target: RevisionTarget; revision: StoredRevision }[] = [];
  private pendingBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private readonly process = randomBytes(4).toString('hex');
  private seq = 0;
  private stopped = false;

  constructor(
    private readonly storage: Storage,
    private readonly history: HistoryStore,
    private readonly opts: HistoryPersistenceOptions = {},
  ) {}

  /** Reads the persisted revisions into the history, then follows it. */
  async load(): Promise<void> {
    this.history.listener = this;
    let startKey: string | undefined;
    for (;;) {
      const page = await this.storage.list(HISTORY_PREFIX, { limit: 100, ...(startKey ? { startKey } : {}) });
      for (const item of page.items) this.loadBatch(item.key, item.value);
      if (!page.more || page.items.length === 0) break;
      startKey = `${page.items[page.items.length - 1]!.key}\u0000`;
    }
  }

  private loadBatch(key: string, value: Uint8Array): void {
    const lines: Line[] = [];
    for (const text of Buffer.from(value).toString('utf8').split('\n')) {
      if (!text) continue;
      try {
        const line = JSON.parse(text) as Line;
        if (line && typeof line === 'object' && line.t && line.r && typeof line.r.text === 'string') lines.push(line);
      } catch {
        // a damaged line loses that revision, not the others
      }
    }
    if (lines.length === 0) return this.remove(key);
    // Every line counts as kept until the history says otherwise (retention may drop some now).
    const batch = { key, live: lines.length };
    for (const line of lines) {
      const revision: StoredRevision = { ...line.r, batch };
      if (!this.history.add(line.t, revision) && !revision.dropped) this.dropped(revision);
    }
  }

  added(target: RevisionTarget, revision: StoredRevision): void {
    if (this.stopped) return;
    this.pending.push({ target, revision });
    this.pendingBytes += revision.text.length + 256;
    if (this.pendingBytes >= BATCH_BYTES) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.opts.flushMs ?? 1000).unref();
  }

  dropped(revision: StoredRevision): void {
    const batch = revision.batch;
    if (!batch) return; // not written yet: the flush leaves it out
    revision.batch = undefined;
    if (--batch.live === 0) this.remove(batch.key);
  }

  private remove(key: string): void {
    this.storage.delete(key).catch((err: unknown) => this.opts.onError?.(err));
  }

  /** Writes what is pending (one batch key per BATCH_BYTES). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const work = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    this.flushing = this.flushing.then(() => this.write(work));
    return this.flushing;
  }

  private async write(work: { target: RevisionTarget; revision: StoredRevision }[]): Promise<void> {
    let lines: string[] = [];
    let members: StoredRevision[] = [];
    let bytes = 0;
    const put = async (): Promise<void> => {
      if (members.length === 0) return;
      const key = `${HISTORY_PREFIX}${String(Date.now()).padStart(15, '0')}-${this.process}-${String(this.seq++).padStart(8, '0')}`;
      const batch = { key, live: 0 };
      try {
        await this.storage.create(key, Buffer.from(lines.join('\n'), 'utf8'));
        for (const m of members) {
          if (m.dropped) continue;
          m.batch = batch;
          batch.live++;
        }
        if (batch.live === 0) this.remove(key);
      } catch (err) {
        this.opts.onError?.(err);
      }
      lines = [];
      members = [];
      bytes = 0;
    };
    for (const { target, revision } of work) {
      if (revision.dropped) continue;
      const { dropped: _d, batch: _b, ...r } = revision;
      const text = JSON.stringify({ t: target, r } satisfies Line);
      if (bytes > 0 && bytes + text.length > BATCH_BYTES) await put();
      lines.push(text);
      members.push(revision);
      bytes += text.length;
    }
    await put();
  }

  /** Writes what is pending and stops following the history. */
  async stop(): Promise<void> {
    await this.flush();
    this.stopped = true;
    if (this.history.listener === this) this.history.listener = undefined;
  }
}
