// Messages between the SQLite backend and its worker thread, and the storage errors carried
// across the thread boundary as plain data.

import {
  CompactedError,
  ConflictError,
  KeyExistsError,
  NotFoundError,
  StorageError,
  TooLargeResourceVersionError,
  type Item,
  type ListResult,
  type StorageEvent,
} from './interface.js';
import type { PackedList } from './sqlite-wire.js';

export type SqliteRequest =
  | { op: 'revision' }
  | { op: 'get'; key: string; atRevision?: number }
  | { op: 'list'; prefix: string; atRevision?: number; startKey?: string; limit?: number }
  | { op: 'create'; key: string; value: Uint8Array }
  | { op: 'update'; key: string; value: Uint8Array; ifModRevision?: number }
  | { op: 'delete'; key: string; ifModRevision?: number }
  | { op: 'events'; prefix: string; after: number; limit: number }
  | { op: 'compact'; revision: number };

export type SqliteResult = number | Item | ListResult | PackedList | StorageEvent[] | { item?: Item; revision: number } | null;

type WireError =
  | { kind: 'KeyExists'; key: string }
  | { kind: 'NotFound'; key: string }
  | { kind: 'Conflict'; key: string; expected: number; actual: number }
  | { kind: 'Compacted'; requested: number; compacted: number }
  | { kind: 'TooLarge'; requested: number; current: number }
  | { kind: 'Other'; message: string };

export type SqliteReply = { id: number; ok: true; result: SqliteResult } | { id: number; ok: false; error: WireError };

export type ToWorker =
  | { type: 'open'; file: string; busyTimeoutMs: number; verify: boolean }
  | { type: 'batch'; requests: { id: number; req: SqliteRequest }[] }
  | { type: 'close' };

export type FromWorker =
  | { type: 'opened'; revision: number; compacted: number }
  | { type: 'open-failed'; message: string }
  | { type: 'batch'; replies: SqliteReply[]; events: StorageEvent[] }
  | { type: 'closed' };

export function toWireError(err: unknown): WireError {
  if (err instanceof KeyExistsError) return { kind: 'KeyExists', key: err.key };
  if (err instanceof NotFoundError) return { kind: 'NotFound', key: err.key };
  if (err instanceof ConflictError) return { kind: 'Conflict', key: err.key, expected: err.expected, actual: err.actual };
  if (err instanceof CompactedError) return { kind: 'Compacted', requested: err.requested, compacted: err.compacted };
  if (err instanceof TooLargeResourceVersionError) return { kind: 'TooLarge', requested: err.requested, current: err.current };
  return { kind: 'Other', message: err instanceof Error ? err.message : String(err) };
}

export function fromWireError(err: WireError): StorageError {
  switch (err.kind) {
    case 'KeyExists':
      return new KeyExistsError(err.key);
    case 'NotFound':
      return new NotFoundError(err.key);
    case 'Conflict':
      return new ConflictError(err.key, err.expected, err.actual);
    case 'Compacted':
      return new CompactedError(err.requested, err.compacted);
    case 'TooLarge':
      return new TooLargeResourceVersionError(err.requested, err.current);
    case 'Other':
      return new StorageError(err.message);
  }
}
