// The programs the bench runs, shared by every section and by the peers.

/** The smallest program: no tool call. */
export const TRIVIAL_PROGRAM = 'return 1';

/** About 1 KB of typed TypeScript making 3 sequential nested calls to `lookup`. */
export const KB_PROGRAM = `
// Score report over three records: a small typed program of the usual shape.
interface Item { id: number; name: string; score: number; tags: string[] }
type Grade = 'low' | 'mid' | 'high';
const grade = (score: number): Grade => (score >= 70 ? 'high' : score >= 40 ? 'mid' : 'low');
function describe(item: Item): string {
  const tags = item.tags.filter((t) => t !== 'bench').join(', ');
  return \`\${item.name} (#\${item.id}) scored \${item.score} [\${grade(item.score)}] tags: \${tags}\`;
}
const items: Item[] = [];
for (const id of [3, 7, 11]) {
  const item = (await tools.lookup({ id })) as Item | null;
  if (item === null) throw new Error(\`no item \${id}\`);
  items.push(item);
}
const byGrade = new Map<Grade, number[]>();
for (const item of items) byGrade.set(grade(item.score), [...(byGrade.get(grade(item.score)) ?? []), item.id]);
const total = items.reduce((sum, item) => sum + item.score, 0);
const best = [...items].sort((a, b) => b.score - a.score || a.id - b.id)[0]!;
console.log(items.map(describe).join('\\n'));
return { count: items.length, total, mean: Math.round((total / items.length) * 100) / 100, best: best.name, grades: Object.fromEntries(byGrade) };
`.trim();

/** Tool calls in NESTED_CALLS_PROGRAM. */
export const NESTED_CALLS = 1000;

/** `calls` sequential nested calls to the trivial `noop` tool; returns the sum of 0 … calls − 1. */
function sequentialCallsProgram(calls: number): string {
  return `let sum = 0;
for (let i = 0; i < ${calls}; i++) sum += (await tools.noop({ n: i })) as number;
return sum;`;
}

/** What a program of `calls` sequential `noop` calls returns. */
export const sequentialCallsSum = (calls: number): number => (calls * (calls - 1)) / 2;

/** 1,000 sequential nested calls to the trivial `noop` tool. */
export const NESTED_CALLS_PROGRAM = sequentialCallsProgram(NESTED_CALLS);

/** Tool calls in DOUBLED_NESTED_CALLS_PROGRAM. */
export const DOUBLED_NESTED_CALLS = 2000;

/**
 * NESTED_CALLS_PROGRAM with 2,000 calls: timed back to back with it, the difference of
 * the two runs is 1,000 calls alone, without the work every run does once.
 */
export const DOUBLED_NESTED_CALLS_PROGRAM = sequentialCallsProgram(DOUBLED_NESTED_CALLS);

/** Tool calls in MEDIUM_STREAK_PROGRAM. */
export const MEDIUM_STREAK_CALLS = 16;

/**
 * 16 sequential nested calls: a medium program, whose blocking streak the in-process
 * sandbox samples (from the 8th call) and holds for its last 3 calls (from the 14th).
 */
export const MEDIUM_STREAK_PROGRAM = sequentialCallsProgram(MEDIUM_STREAK_CALLS);

/** 100 calls to `wait` (10 ms each) issued at once with Promise.all. */
export function waitAllProgram(calls: number, ms: number, safe: boolean): string {
  return `const done = await Promise.all(Array.from({ length: ${calls} }, () => tools.wait({ ms: ${ms}, safe: ${safe} })));
return done.length;`;
}
