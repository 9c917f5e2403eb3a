// The blocks of the docs tagged ```sh postgres (a recipe that needs a PostgreSQL server) run
// as written against a throwaway cluster: DATABASE_URL names a fresh database of it, each
// `ptc` command is a process of its own (a run paused by one is resumed by another), and
// the ```text output block after a recipe is what it must print.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type PostgresCluster, startPostgres } from '../support/postgres-cluster.ts';
import { allBlocks, missingOutput, root, runShellBlock, where } from './doc-blocks.ts';

const recipes = allBlocks().filter((block) => block.tags.includes('postgres'));

mkdirSync(join(root, '.build-test'), { recursive: true });
const scratch = mkdtempSync(join(root, '.build-test', 'postgres-recipe-'));
let cluster: PostgresCluster | undefined;
beforeAll(async () => {
  cluster = await startPostgres();
}, 180_000);
afterAll(async () => {
  await cluster?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('PostgreSQL recipes of the docs', () => {
  it('there is one, in postgres.md, with the output it prints', () => {
    expect(recipes.map((block) => block.doc)).toContain('docs/postgres.md');
    for (const block of recipes) expect([where(block), block.language]).toEqual([where(block), 'sh']);
    expect(recipes.every((block) => block.output !== undefined)).toBe(true);
  });

  it.each(recipes.map((block, i) => [where(block), block, i] as const))(
    '%s runs as written against a fresh database and prints what the docs say',
    async (_name, block, i) => {
      const url = await cluster!.createDatabase(`recipe_${i}`);
      const printed = runShellBlock(block, scratch, { DATABASE_URL: url });
      expect(missingOutput(block.output ?? [], printed)).toBeUndefined();
    },
    180_000,
  );
});
