// Reading the BFCL multi-turn files: question files (JSON Lines), their possible answers and
// the func docs, and which class owns which function.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PyValue } from './py-value.ts';

export interface FuncDoc {
  readonly name: string;
  readonly description: string;
  readonly parameters: {
    readonly type: string;
    readonly properties: Readonly<Record<string, BfclSchema>>;
    readonly required?: readonly string[];
  };
  readonly response?: BfclSchema;
}
export interface BfclSchema {
  readonly type?: string;
  readonly description?: string;
  readonly items?: BfclSchema;
  readonly properties?: Readonly<Record<string, BfclSchema>>;
  readonly [keyword: string]: unknown;
}

export interface Entry {
  readonly id: string;
  readonly category: string;
  readonly question: readonly (readonly { role: string; content: string }[])[];
  readonly initial_config: Readonly<Record<string, Record<string, PyValue>>>;
  readonly involved_classes: readonly string[];
  readonly missed_function?: Readonly<Record<string, readonly string[]>>;
  readonly ground_truth: readonly (readonly string[])[];
}

/** Class → func-doc file, as upstream's backend config maps them. */
export const CLASS_DOC_FILES: Readonly<Record<string, string>> = {
  GorillaFileSystem: 'gorilla_file_system.json',
  MathAPI: 'math_api.json',
  MessageAPI: 'message_api.json',
  TwitterAPI: 'posting_api.json',
  TicketAPI: 'ticket_api.json',
  TradingBot: 'trading_bot.json',
  TravelAPI: 'travel_booking.json',
  VehicleControlAPI: 'vehicle_control.json',
};

/** Where a method's positional order differs from its func doc's property order. */
export const METHOD_ORDER_OVERRIDES: Readonly<Record<string, readonly string[]>> = {
  purchase_insurance: ['access_token', 'insurance_type', 'booking_id', 'insurance_cost', 'card_id'],
};

const jsonLines = <T>(path: string): T[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);

export interface Dataset {
  readonly entries: readonly Entry[];
  /** Class → its func docs, in file order. */
  readonly docs: ReadonlyMap<string, readonly FuncDoc[]>;
}

/** Every `BFCL_v4_multi_turn_*.json` in `dir`, with `possible_answer/` and `multi_turn_func_doc/` beside it. */
export function loadDataset(dir: string, options: { readonly categories?: readonly string[] } = {}): Dataset {
  const files = readdirSync(dir)
    .filter((f) => /^BFCL_v4_multi_turn_.+\.json$/.test(f))
    .sort();
  const entries: Entry[] = [];
  for (const file of files) {
    const category = file.replace(/^BFCL_v4_/, '').replace(/\.json$/, '');
    if (options.categories !== undefined && !options.categories.some((c) => category.endsWith(c))) continue;
    const answers = new Map(
      jsonLines<{ id: string; ground_truth: string[][] }>(join(dir, 'possible_answer', file)).map((a) => [
        a.id,
        a.ground_truth,
      ]),
    );
    for (const q of jsonLines<Omit<Entry, 'category' | 'ground_truth'>>(join(dir, file))) {
      const ground_truth = answers.get(q.id);
      if (ground_truth === undefined) throw new Error(`${file}: no possible answer for ${q.id}`);
      entries.push({ ...q, category, ground_truth });
    }
  }
  const docs = new Map<string, FuncDoc[]>();
  for (const [cls, file] of Object.entries(CLASS_DOC_FILES)) {
    const path = join(dir, 'multi_turn_func_doc', file);
    if (existsSync(path)) docs.set(cls, jsonLines<FuncDoc>(path));
  }
  return { entries, docs };
}
