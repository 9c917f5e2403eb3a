// Our environments against upstream's own outputs (bench/bfcl/upstream-sample.json, made by
// upstream-sample.py from upstream's Python classes): the ground truth replayed turn by
// turn, every result string and every public attribute compared.
import { readFileSync } from 'node:fs';
import type { BfclEnv } from './envs/env.ts';
import { createEnvs } from './envs/index.ts';
import { bindArgs, parseCall } from './parse-call.ts';
import type { PyValue } from './py-value.ts';
import { runMethod, type Session } from './tools.ts';

export interface SampleEntry {
  readonly id: string;
  readonly category: string;
  readonly involved_classes: readonly string[];
  readonly initial_config: Readonly<Record<string, Record<string, PyValue>>>;
  readonly ground_truth: readonly (readonly string[])[];
  readonly turns: readonly { readonly results: readonly string[]; readonly state: Record<string, unknown> }[];
}

export interface FidelityReport {
  readonly entries: number;
  readonly results: number;
  /** Result strings identical to upstream's. */
  readonly exact: number;
  /** Identical once `10.0` and `10` are read alike (this port prints integral floats as ints). */
  readonly equalButFloatText: number;
  readonly mismatches: readonly string[];
  readonly states: number;
  readonly stateMismatches: readonly string[];
}

export interface UpstreamSample {
  /** Each method's class and positional parameter order, as upstream's Python signatures have them. */
  readonly methods: Readonly<Record<string, { readonly cls: string; readonly order: readonly string[] }>>;
  readonly entries: readonly SampleEntry[];
}

export const loadSample = (path: string): UpstreamSample => JSON.parse(readFileSync(path, 'utf8')) as UpstreamSample;

/** Public state as JSON, the way upstream-sample.py writes Python's (int keys as strings, sets sorted). */
export function plainState(v: PyValue): unknown {
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), plainState(x)]));
  if (v instanceof Set) return [...v].map(plainState).sort();
  if (Array.isArray(v)) return v.map(plainState);
  if (typeof v === 'object' && v !== null && !(v instanceof Map))
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plainState(x as PyValue)]));
  return v ?? null;
}

const sameJson = (a: unknown, b: unknown): boolean => {
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  if (typeof a === 'boolean' || typeof b === 'boolean') return Number(a) === Number(b);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every(
      (k) => Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    )
  );
};

const floatsAsInts = (s: string): string => s.replace(/(\d)\.0(?![\d])/g, '$1');

export function checkAgainstUpstream(sample: UpstreamSample): FidelityReport {
  const index = new Map(Object.entries(sample.methods));
  let results = 0;
  let exact = 0;
  let loose = 0;
  let states = 0;
  const mismatches: string[] = [];
  const stateMismatches: string[] = [];
  for (const entry of sample.entries) {
    const session: Session = {
      envs: createEnvs(entry.involved_classes, entry.initial_config, entry.category.includes('long_context')),
      results: [],
    };
    entry.ground_truth.forEach((calls, t) => {
      const start = session.results.length;
      for (const src of calls) {
        const call = parseCall(src);
        const m = index.get(call.name);
        if (m === undefined) throw new Error(`${entry.id}: unknown function ${call.name}`);
        runMethod(session, m.cls, call.name, bindArgs(call, m.order));
      }
      const ours = session.results.slice(start);
      const theirs = entry.turns[t]?.results ?? [];
      theirs.forEach((text, i) => {
        results += 1;
        const mine = ours[i] ?? '';
        if (mine === text) exact += 1;
        else if (floatsAsInts(mine) === floatsAsInts(text)) loose += 1;
        else
          mismatches.push(
            `${entry.id} turn ${t} call ${i}: ours ${mine.slice(0, 200)} | upstream ${text.slice(0, 200)}`,
          );
      });
      for (const [cls, expected] of Object.entries(entry.turns[t]?.state ?? {})) {
        states += 1;
        const env: BfclEnv | undefined = session.envs.get(cls);
        const actual = plainState((env?.state() ?? {}) as PyValue);
        if (!sameJson(actual, expected)) {
          const keys = Object.keys(expected as object).filter(
            (k) => !sameJson((actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k]),
          );
          stateMismatches.push(`${entry.id} turn ${t} ${cls}: ${keys.join(', ')}`);
        }
      }
    });
  }
  return {
    entries: sample.entries.length,
    results,
    exact,
    equalButFloatText: loose,
    mismatches,
    states,
    stateMismatches,
  };
}
