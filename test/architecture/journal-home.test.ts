// Everything that stores runs lives in src/journal/: it alone imports the database
// drivers (`pg`, `node:sqlite`), and every journal store and run-claims store is defined
// there. Someone looking for "where is the PostgreSQL store" opens one folder.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import ts from 'typescript';
import { importsOf, root, tsFiles } from './import-graph.ts';

const JOURNAL_HOME = `src${sep}journal${sep}`;
const DRIVERS = /^(pg|pg\/.*|node:sqlite|sqlite)$/;
/** What defines a store: `openXJournal`, `createXJournal`, `createXRunClaims`. */
const STORE_FACTORY = /^(open|create)\w*(Journal|RunClaims)$/;
/** What a store is: a class implementing the store contracts. */
const STORE_CONTRACT = /^(Journal|RunClaims)$/;

interface SourceFile {
  readonly path: string;
  readonly text: string;
}

/** The names of `text`'s exported functions, exported constants and store classes. */
function storeDefinitions(text: string): string[] {
  const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest);
  const found: string[] = [];
  const exported = (node: ts.Node): boolean =>
    ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const statement of source.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name && exported(statement)) {
      if (STORE_FACTORY.test(statement.name.text)) found.push(statement.name.text);
    } else if (ts.isVariableStatement(statement) && exported(statement)) {
      for (const declaration of statement.declarationList.declarations)
        if (ts.isIdentifier(declaration.name) && STORE_FACTORY.test(declaration.name.text))
          found.push(declaration.name.text);
    } else if (ts.isClassDeclaration(statement)) {
      const contracts = (statement.heritageClauses ?? [])
        .flatMap((clause) => clause.types)
        .map((type) => type.expression.getText(source));
      if (contracts.some((name) => STORE_CONTRACT.test(name)))
        found.push(`class ${statement.name?.text ?? '(anonymous)'} implements ${contracts.join(', ')}`);
    }
  }
  return found;
}

/** Every file outside src/journal/ that imports a driver or defines a store, as `path: what`. */
function journalHomeViolations(sources: readonly SourceFile[]): string[] {
  const violations: string[] = [];
  for (const { path, text } of sources) {
    if (path.startsWith(JOURNAL_HOME)) continue;
    for (const edge of importsOf(path, text))
      if (DRIVERS.test(edge.specifier)) violations.push(`${path}: imports ${edge.specifier} (only src/journal/ may)`);
    for (const name of storeDefinitions(text))
      violations.push(`${path}: defines ${name} (journal stores live in src/journal/)`);
  }
  return violations;
}

const sources: SourceFile[] = ['src', 'sandbox', 'sdk-gen']
  .flatMap(tsFiles)
  .map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') }));

describe('the journal has one home', () => {
  it('the walk sees the drivers and the stores where they are', () => {
    const journal = sources.filter((s) => s.path.startsWith(JOURNAL_HOME));
    const drivers = new Set(journal.flatMap((s) => importsOf(s.path, s.text).map((e) => e.specifier)));
    expect(drivers.has('pg')).toBe(true);
    expect(drivers.has('node:sqlite')).toBe(true);
    expect(journal.flatMap((s) => storeDefinitions(s.text)).sort()).toEqual(
      expect.arrayContaining([
        'createMemoryJournal',
        'createMemoryRunClaims',
        'createPostgresRunClaims',
        'createSqliteRunClaims',
        'createFileRunClaims',
        'openFileJournal',
        'openPostgresJournal',
        'openSqliteJournal',
      ]),
    );
  });

  it('only src/journal/ imports pg or node:sqlite, and every store is defined there', () => {
    expect(journalHomeViolations(sources)).toStrictEqual([]);
  });

  it('the rule catches each kind of breach', () => {
    const breaches: SourceFile[] = [
      { path: join('src', 'scheduler', 'a.ts'), text: "import type { Pool } from 'pg';" },
      { path: join('src', 'scheduler', 'b.ts'), text: "const pg = await import('pg');" },
      { path: join('src', 'runtime', 'c.ts'), text: "import { DatabaseSync } from 'node:sqlite';" },
      { path: join('sandbox', 'd.ts'), text: "export { DatabaseSync } from 'node:sqlite';" },
      { path: join('src', 'scheduler', 'e.ts'), text: 'export function openRedisJournal() {}' },
      { path: join('src', 'ptc', 'f.ts'), text: 'export const createRedisRunClaims = () => {};' },
      { path: join('src', 'ptc', 'g.ts'), text: 'class Store implements Journal {}' },
    ];
    expect(journalHomeViolations(breaches)).toHaveLength(breaches.length);
    const home = breaches.map((b) => ({ ...b, path: join('src', 'journal', 'redis', 'x.ts') }));
    expect(journalHomeViolations(home)).toStrictEqual([]);
  });
});
