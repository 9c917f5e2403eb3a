// Every named type a public signature mentions can be named by a user: it is exported
// from that entry or from the root entry. Walked with TypeScript's checker over the
// declarations of each entry's exports (function bodies and private members are not
// signatures), following each of our types to the types it mentions.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, string | Record<string, string>>;
};
const entries = Object.entries(pkg.exports).flatMap(([key, target]) =>
  typeof target === 'string' ? [] : [[key, join(root, target['ptc-source']!)] as const],
);

// Type-level machinery of the schema DSL's inference: users name InferArgs/InferNode and
// the node types, never these steps.
const INFERENCE_HELPERS = new Set([
  'NodeBase',
  'Awaitable',
  'Depth',
  'Deeper',
  'WithNull',
  'InferScalar',
  'InferUnion',
  'InferContainer',
  'InferNodeAt',
  'RequiredKeys',
  'OptionalKeys',
  'Flatten',
  'InferMapAt',
]);

const program = ts.createProgram(
  entries.map(([, file]) => file),
  {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2023,
    strict: true,
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
    customConditions: ['ptc-source'],
  },
);
const checker = program.getTypeChecker();
const isOurs = (decl: ts.Declaration): boolean => {
  const file = decl.getSourceFile().fileName;
  return file.startsWith(root) && !file.includes('/node_modules/');
};
const target = (symbol: ts.Symbol): ts.Symbol =>
  symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
/** A member of a namespace is named through it (`StandardSchemaV1.Issue`): the outermost namespace's name. */
function reachableName(symbol: ts.Symbol): string {
  let node: ts.Node | undefined = symbol.declarations?.[0];
  let outer = symbol.name;
  while (node !== undefined && !ts.isSourceFile(node)) {
    if (ts.isModuleDeclaration(node) && ts.isIdentifier(node.name)) outer = node.name.text;
    node = node.parent;
  }
  return outer;
}
const exportsOf = (file: string): ts.Symbol[] =>
  checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file)!)!);

function unnamedTypes(file: string, nameable: ReadonlySet<string>): string[] {
  const exported = exportsOf(file);
  const missing = new Set<string>();
  const seen = new Set<ts.Node>();
  const isPrivate = (node: ts.Node): boolean =>
    (ts.isPropertyDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isGetAccessor(node) ||
      ts.isSetAccessor(node)) &&
    (ts.isPrivateIdentifier(node.name) || (ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Private) !== 0);
  const visit = (node: ts.Node): void => {
    if (ts.isBlock(node) || isPrivate(node)) return;
    const name = ts.isTypeReferenceNode(node)
      ? node.typeName
      : ts.isExpressionWithTypeArguments(node)
        ? node.expression
        : ts.isTypeQueryNode(node)
          ? node.exprName
          : undefined;
    const symbol = name === undefined ? undefined : checker.getSymbolAtLocation(name);
    if (symbol !== undefined) {
      const referenced = target(symbol);
      if (!(referenced.flags & ts.SymbolFlags.TypeParameter) && referenced.declarations?.some(isOurs)) {
        const name = reachableName(referenced);
        if (!nameable.has(name) && !INFERENCE_HELPERS.has(name)) missing.add(name);
        for (const decl of referenced.declarations) walk(decl);
      }
    }
    ts.forEachChild(node, visit);
  };
  const walk = (decl: ts.Node): void => {
    if (seen.has(decl)) return;
    seen.add(decl);
    visit(decl);
  };
  for (const symbol of exported) {
    const resolved = target(symbol);
    for (const decl of resolved.declarations ?? []) {
      walk(decl);
      // A function or constant without a written type: its inferred signature is public too.
      const type = checker.getTypeOfSymbolAtLocation(resolved, decl);
      for (const signature of type.getCallSignatures()) {
        const returned = signature.getReturnType();
        if ((returned.flags & ts.TypeFlags.TypeParameter) !== 0) continue;
        const named = returned.aliasSymbol ?? returned.getSymbol();
        if (named?.declarations?.some(isOurs) && !nameable.has(named.name) && !named.name.startsWith('__'))
          missing.add(named.name);
      }
    }
  }
  return [...missing].sort();
}

describe('public types', () => {
  const rootFile = entries.find(([key]) => key === '.')![1];
  const rootNames = new Set(exportsOf(rootFile).map((s) => s.name));

  it.each(entries)('%s: every type in a public signature is exported (here or from the root entry)', (_key, file) => {
    const nameable = new Set([...rootNames, ...exportsOf(file).map((s) => s.name)]);
    expect(unnamedTypes(file, nameable)).toStrictEqual([]);
  });

  it('the walk finds a type that is used but not exported', () => {
    const withoutTwo = new Set([...rootNames].filter((name) => name !== 'ToolMode' && name !== 'SandboxLimits'));
    const already = unnamedTypes(rootFile, rootNames);
    expect(unnamedTypes(rootFile, withoutTwo)).toStrictEqual([...already, 'SandboxLimits', 'ToolMode'].sort());
  });

  it('internals are not exported from the root entry', () => {
    for (const name of ['ExecutionGates', 'replay', 'PipelineDeps', 'ToolRegistry', 'Hooks'])
      expect([name, rootNames.has(name)]).toStrictEqual([name, false]);
    expect(rootNames.has('replayJournal')).toBe(true);
  });
});
