// Our tools against upstream's recorded outputs (upstream-sample.json, written by
// upstream-sample.py from upstream's own environment): the fresh database's hash, each
// gold action's tool message and the database hash it leads to, and extra scenarios of
// errors and edge cases. Returns every difference found.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dbHash } from './db-hash.ts';
import { callStore } from './grade.ts';
import { parseDb } from './retail-db.ts';
import { RetailStore } from './retail-store.ts';
import type { RetailTask } from './tasks.ts';
import { resultText } from './tools.ts';

interface RecordedCall {
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly content: string;
}

export interface UpstreamSample {
  readonly initialHash: string;
  readonly tasks: Readonly<Record<string, { readonly goldHash: string; readonly outputs: readonly string[] }>>;
  readonly texts: readonly (RecordedCall & { readonly task: string })[];
  readonly scenarios: readonly {
    readonly title: string;
    readonly calls: readonly RecordedCall[];
    readonly hash: string;
  }[];
}

export const loadSample = (): UpstreamSample =>
  JSON.parse(readFileSync(new URL('./upstream-sample.json', import.meta.url), 'utf8')) as UpstreamSample;

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

/** The tool message upstream's model would read for one call. */
export function toolMessage(
  store: RetailStore,
  name: string,
  args: unknown,
  ranks: ReadonlyMap<string, number>,
): string {
  const r = callStore(store, name, args);
  return r.error !== undefined ? `Error: ${r.error}` : resultText(name, r.value, ranks);
}

export function checkAgainstUpstream(
  dbText: string,
  ranks: ReadonlyMap<string, number>,
  tasks: readonly RetailTask[],
  sample: UpstreamSample = loadSample(),
): string[] {
  const diffs: string[] = [];
  if (dbHash(parseDb(dbText)) !== sample.initialHash) diffs.push('fresh database: hash differs');
  for (const task of tasks) {
    const recorded = sample.tasks[task.id];
    if (recorded === undefined) {
      diffs.push(`task ${task.id}: not recorded`);
      continue;
    }
    const store = new RetailStore(parseDb(dbText));
    for (const [i, a] of task.evaluation_criteria.actions.entries()) {
      const text = toolMessage(store, a.name, a.arguments, ranks);
      const full = sample.texts.find(
        (t) => t.task === task.id && t.name === a.name && sha(t.content) === recorded.outputs[i],
      );
      if (sha(text) !== recorded.outputs[i])
        diffs.push(
          `task ${task.id} action ${i} (${a.name}): message differs${full === undefined ? '' : `: ${full.content.slice(0, 200)}`}`,
        );
    }
    if (dbHash(store.db) !== recorded.goldHash) diffs.push(`task ${task.id}: database after the gold actions differs`);
  }
  for (const s of sample.scenarios) {
    const store = new RetailStore(parseDb(dbText));
    for (const [i, c] of s.calls.entries()) {
      const text = toolMessage(store, c.name, c.arguments, ranks);
      if (text !== c.content)
        diffs.push(`${s.title} #${i} (${c.name}): upstream ${c.content.slice(0, 160)} | ours ${text.slice(0, 160)}`);
    }
    if (dbHash(store.db) !== s.hash) diffs.push(`${s.title}: database differs`);
  }
  return diffs;
}
