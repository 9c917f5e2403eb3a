// The embedded journal store: one JSONL file, append-only. Each append is one write
// of whole lines followed by fsync, so a commit is durable when `append` resolves.
// A process killed mid-write leaves at most one torn last line: reading skips it with
// a warning, and the next append starts on a fresh line, so earlier entries are never
// touched.
import { open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Journal, JournalContents, JournalEvent, JournalWarning } from '../journal.ts';
import { isJournalEvent, parseJournal } from '../parse-journal.ts';
import { createFileRunClaims } from './file-run-claims.ts';
import { createFileSessionStore } from './file-session-store.ts';
import type { SessionStore } from '../../sessions/session-store.ts';

export interface FileJournalOptions {
  /** Skipped lines found by `read()` or by the first append. Default: `process.emitWarning`. */
  readonly onWarning?: (warning: JournalWarning) => void;
}

export interface FileJournal extends Journal {
  readonly path: string;
  /** Sessions (`createToolRuntime({ sessions })`), in files beside the journal (`<path>.sessions/`). */
  readonly sessions: SessionStore;
}

const NEWLINE = 0x0a;

export function openFileJournal(path: string, options: FileJournalOptions = {}): FileJournal {
  if (typeof path !== 'string' || path.length === 0)
    throw new TypeError('openFileJournal: path must be a non-empty file path');
  const onWarning = options.onWarning ?? ((w: JournalWarning) => process.emitWarning(w.message, 'JournalWarning'));
  // Whether the file may end without a newline (unknown until the first append looks).
  let needsNewline: boolean | undefined;
  // Appends are serialized: lines never interleave, and order is call order.
  let tail: Promise<void> = Promise.resolve();

  const write = async (lines: readonly string[]): Promise<void> => {
    const handle = await open(path, 'a+');
    try {
      if (needsNewline === undefined) {
        const { size } = await handle.stat();
        needsNewline = false;
        if (size > 0) {
          const last = Buffer.alloc(1);
          await handle.read(last, 0, 1, size - 1);
          if (last[0] !== NEWLINE) {
            needsNewline = true;
            onWarning({
              kind: 'torn-tail',
              message: `${path}: ends with an incomplete line (a torn write?); it is skipped when read, and new entries start on a fresh line`,
            });
          }
        } else {
          // A new file: make its directory entry durable too.
          await syncDirectory(dirname(path));
        }
      }
      const data = Buffer.from(`${needsNewline ? '\n' : ''}${lines.map((l) => `${l}\n`).join('')}`, 'utf8');
      // Until the write is known complete, the file may end mid-line.
      needsNewline = true;
      let offset = 0;
      while (offset < data.length) {
        const { bytesWritten } = await handle.write(data, offset, data.length - offset);
        offset += bytesWritten;
      }
      needsNewline = false;
      await handle.sync();
    } finally {
      await handle.close();
    }
  };

  return {
    path,
    claims: createFileRunClaims(path),
    sessions: createFileSessionStore(path),
    append(events: readonly JournalEvent[]): Promise<void> {
      let lines: string[];
      try {
        lines = events.map((event, i) => {
          if (!isJournalEvent(event))
            throw new TypeError(
              `journal ${path}: events[${i}] is not a tool/call or tool/result event (nor a run/* event)`,
            );
          return JSON.stringify(event);
        });
      } catch (error) {
        return Promise.reject(error);
      }
      const run = tail.then(() => write(lines));
      tail = run.catch(() => {});
      return run;
    },
    async read(): Promise<JournalContents> {
      await tail;
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (error) {
        if ((error as { code?: unknown }).code === 'ENOENT') return { events: [], warnings: [] };
        throw error;
      }
      const contents = parseJournal(text, path);
      contents.warnings.forEach(onWarning);
      return contents;
    },
  };
}

async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Not every platform can fsync a directory; the file itself is still synced.
  }
}
