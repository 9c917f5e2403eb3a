// Long-context filler. Upstream keeps it as Python literals (long_context.py), which are not
// copied here: by default this module makes its own filler of the same shapes and sizes
// (a 3,251-character paragraph, 30 image names, 1,001 / 1,000 symbols, 2,000 moving
// averages, …) from a seeded generator. Both the model run and the ground-truth run load
// the same filler, so grading is unaffected; the text a model reads differs from
// upstream's. `--filler <file.json>` (written by bench/bfcl/extract-filler.py from your own
// upstream checkout) loads the real constants instead.
import { readFileSync } from 'node:fs';
import { PyRandom } from './py-random.ts';
import { PyOpaque, type PyValue } from './py-value.ts';

export interface Filler {
  readonly FILE_CONTENT_EXTENSION: string;
  readonly POPULATE_FILE_EXTENSION: readonly string[];
  readonly FILES_TAIL_USED: readonly string[];
  readonly WATCH_LIST_EXTENSION: readonly string[];
  readonly TECHNOLOGY_EXTENSION: readonly string[];
  readonly AUTOMOBILE_EXTENSION: readonly string[];
  readonly MA_5_EXTENSION: readonly number[];
  readonly MA_20_EXTENSION: readonly number[];
  readonly TRANSACTION_HISTORY_EXTENSION: readonly Record<string, PyValue>[];
  readonly ORDER_DETAIL_EXTENSION: Readonly<Record<string, string>>;
  readonly CREDIT_CARD_EXTENSION: Readonly<Record<string, Record<string, PyValue>>>;
  readonly BOOKING_RECORD_EXTENSION: Readonly<Record<string, Record<string, PyValue>>>;
  readonly CAR_STATUS_METADATA_EXTENSION: string;
  readonly PARKING_BRAKE_INSTRUCTION: string;
  readonly LONG_WEATHER_EXTENSION: Readonly<Record<string, PyValue>>;
  readonly INTERMEDIARY_CITIES: readonly string[];
}

const WORDS = (
  'archive ledger quarterly audit backlog draft index summary revision margin appendix ' +
  'schedule routine notes vendor invoice reminder outline metric baseline sample cluster ' +
  'pipeline module snapshot review channel workflow template record report status estimate'
).split(' ');

function prose(rng: PyRandom, chars: number): string {
  let out = '';
  while (out.length < chars) {
    const n = 8 + rng.randint(0, 10);
    const words: string[] = [];
    for (let i = 0; i < n; i++) words.push(WORDS[rng.randint(0, WORDS.length - 1)] ?? 'note');
    const sentence = words.join(' ');
    out += `${sentence[0]?.toUpperCase() ?? ''}${sentence.slice(1)}. `;
  }
  return out.slice(0, chars);
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
function symbols(rng: PyRandom, count: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let s = '';
    for (let n = 1 + rng.randint(0, 4); n > 0; n--) s += LETTERS[rng.randint(0, 25)];
    out.push(s);
  }
  return out;
}

const cents = (rng: PyRandom, lo: number, hi: number): number => rng.randint(lo * 100, hi * 100) / 100;
const pad = (n: number, w = 2): string => n.toString().padStart(w, '0');

/** Our own filler: same keys, counts and sizes as upstream's, different text. */
export function syntheticFiller(): Filler {
  const rng = new PyRandom(20240901);
  const images: string[] = [];
  for (let i = 0; i < 30; i++) images.push(`image_${rng.getrandbits(63).toString()}.jpg`);
  const cards: Record<string, Record<string, PyValue>> = {};
  for (let i = 0; i < 22; i++) {
    const number = `${4000 + i}${rng.getrandbits(40).toString().padStart(12, '0').slice(0, 12)}`;
    cards[number] = {
      card_number: number,
      expiration_date: `${pad(1 + (i % 12))}/${26 + (i % 4)}`,
      cardholder_name: `Holder ${LETTERS[i]}`,
      card_verification_number: 100 + rng.randint(0, 899),
      balance: cents(rng, 1000, 20000),
    };
  }
  const cardIds = Object.keys(cards);
  const airports = ['SFO', 'LAX', 'JFK', 'ORD', 'BOS', 'RMS', 'SBK', 'MPC'];
  const classes = ['economy', 'business', 'first'];
  const bookings: Record<string, Record<string, PyValue>> = {};
  for (let i = 0; i < 16; i++) {
    bookings[`booking_${901 + i}`] = {
      card_id: cardIds[i % cardIds.length] ?? '',
      travel_date: `2024-${pad(1 + (i % 12))}-${pad(1 + ((i * 7) % 28))}`,
      travel_from: airports[i % airports.length] ?? 'SFO',
      travel_to: airports[(i + 3) % airports.length] ?? 'JFK',
      travel_class: classes[i % 3] ?? 'economy',
      travel_cost: 100 * (2 + rng.randint(0, 10)),
      transaction_id: `trans_${pad(i + 1, 3)}`,
    };
  }
  const transactions: Record<string, PyValue>[] = [];
  for (let i = 0; i < 1000; i++) {
    transactions.push({
      type: rng.randint(0, 1) === 0 ? 'deposit' : 'withdrawal',
      amount: cents(rng, 100, 10000),
      timestamp: `202${3 + rng.randint(0, 1)}-${pad(1 + rng.randint(0, 11))}-${pad(1 + rng.randint(0, 27))} ${pad(rng.randint(0, 23))}:${pad(rng.randint(0, 59))}:${pad(rng.randint(0, 59))}.${rng.randint(100000, 999999)}`,
    });
  }
  const orderKeys = [
    ['company_overview', 1094],
    ['market_analysis', 886],
    ['technical_analysis', 889],
    ['financial_highlights', 867],
    ['risks', 817],
    ['future_outlook', 885],
    ['historical_performance', 855],
    ['sustainability_initiatives', 713],
  ] as const;
  const orderDetail: Record<string, string> = {};
  for (const [key, size] of orderKeys) {
    const text = prose(rng, size - 16);
    orderDetail[key] = `{symbol}: ${text.slice(0, text.length / 2)} {symbol} ${text.slice(text.length / 2)}`;
  }
  const weather: Record<string, PyValue> = {};
  for (let d = 1; d <= 15; d++) {
    weather[`-${d}_day`] = {
      windSpeed: rng.randint(5, 30),
      humidity: rng.randint(40, 90),
      precipitation: rng.randint(0, 10),
      uvIndex: rng.randint(1, 9),
      visibility: rng.randint(5, 10),
      airPressure: rng.randint(990, 1030),
      dewPoint: rng.randint(2, 15),
    };
  }
  const cityParts = ['North', 'Oak', 'River', 'Stone', 'Maple', 'Fair', 'Glen', 'Pine', 'Lake', 'Cedar', 'Ash', 'Elm'];
  const citySuffix = ['ton', 'ville', 'field', 'port', ' Heights', ' Falls', 'wood', 'dale', ' Springs', 'bury'];
  const cities: string[] = [];
  for (let i = 0; i < 826; i++)
    cities.push(
      `${cityParts[rng.randint(0, cityParts.length - 1)]}${citySuffix[rng.randint(0, citySuffix.length - 1)]}`,
    );
  return {
    FILE_CONTENT_EXTENSION: prose(rng, 3251),
    POPULATE_FILE_EXTENSION: images,
    // Which files keep their text: the names upstream's ground truth reads exactly.
    FILES_TAIL_USED: [
      'log.txt',
      'report.txt',
      'report.csv',
      'DataSet1.csv',
      'file1.txt',
      'finance_report.txt',
      'config.py',
      'Q4_summary.doc',
      'file3.txt',
    ],
    WATCH_LIST_EXTENSION: symbols(rng, 1001),
    TECHNOLOGY_EXTENSION: symbols(rng, 1000),
    AUTOMOBILE_EXTENSION: symbols(rng, 1000),
    MA_5_EXTENSION: Array.from({ length: 2000 }, () => cents(rng, 200, 245)),
    MA_20_EXTENSION: Array.from({ length: 2000 }, () => cents(rng, 200, 245)),
    TRANSACTION_HISTORY_EXTENSION: transactions,
    ORDER_DETAIL_EXTENSION: orderDetail,
    CREDIT_CARD_EXTENSION: cards,
    BOOKING_RECORD_EXTENSION: bookings,
    CAR_STATUS_METADATA_EXTENSION: prose(rng, 6503),
    PARKING_BRAKE_INSTRUCTION: prose(rng, 9710),
    LONG_WEATHER_EXTENSION: weather,
    INTERMEDIARY_CITIES: cities,
  };
}

let current: Filler | undefined;

/** The filler in use: the synthetic one unless {@link useFillerFile} loaded another. */
export function filler(): Filler {
  current ??= syntheticFiller();
  return current;
}

/** Loads the constants from a JSON file (one key per upstream constant name). */
export function useFillerFile(path: string): void {
  const loaded = JSON.parse(readFileSync(path, 'utf8')) as Filler;
  // Upstream's watch-list filler ends with Python's `...`, written as "Ellipsis" by extract-filler.py.
  const watch = loaded.WATCH_LIST_EXTENSION.map((s) => (s === 'Ellipsis' ? new PyOpaque('Ellipsis', 0) : s));
  current = { ...loaded, WATCH_LIST_EXTENSION: watch as unknown as readonly string[] };
}
