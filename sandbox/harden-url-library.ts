// Rewrites the bundled URL library (whatwg-url with tr46) so that it reads built-ins only
// from what the prelude captured before any program ran (guest/url-intrinsics.ts). The
// library is evaluated on a program's first use of URL, after the program could have
// replaced `Object.defineProperty`, `Array.prototype.push` or `String.prototype.split`;
// rewritten, it calls none of the program's replacements (as primordials do in Node):
// - a free global identifier (`Object`, `Reflect`, `Set`, `globalThis`…) is a parameter
//   bound to the value captured at prelude time;
// - a method call `x.m(…)` / `x[k](…)` takes `m` from the capture when `x` is a captured
//   namespace or its prototype is a captured one (strings, arrays, regexps, functions…);
//   other objects (the library's own, or the program's arguments) are called as written;
// - a read of a global's member (`Symbol.iterator`, `Object.prototype`), of a built-in
//   accessor (`.length` of a typed array, `.size`) or of a name the library calls as a
//   method (`arr.toBase64 === web64`) goes through the capture the same way;
// - an object destructuring `const { name } = func` / `({ isWellFormed } = String.prototype)`
//   takes its names from the value read the same way;
// - iteration (for-of, spread, array destructuring, `yield*`) over arrays, strings, Sets
//   and Maps walks them with captured methods, not their (replaceable) iterators;
// - a template literal's values are made text with the captured `toString` of functions
//   and arrays;
// - `instanceof` uses the captured `Function.prototype[Symbol.hasInstance]`, and
//   `new Set(list)` / `new Map(list)` / `new Uint8Array(list)` fill with captured methods.
// Runs at bundle time, and its output depends only on the library's text and the TypeScript
// compiler's declarations, never on the Node that runs it: the reads it reports are names,
// and the prelude captures, of the guest's own built-ins, whichever of them exist there
// (a newer engine has more, e.g. `Uint8Array.prototype.toBase64`).
import ts from 'typescript';

/** The parameter the rewritten library receives its captured built-ins and helpers in. */
export const URL_INTRINSICS_PARAMETER = '__ptc_url_intrinsics';
/** Helpers the rewritten text calls, defined by guest/url-intrinsics.ts. */
export const URL_INTRINSIC_HELPERS = [
  '__ptc_call',
  '__ptc_get',
  '__ptc_iter',
  '__ptc_isa',
  '__ptc_new',
  '__ptc_text',
  '__ptc_pick',
] as const;
const [CALL, GET, ITER, IS_A, NEW, TEXT, PICK] = URL_INTRINSIC_HELPERS;

/** What the library reads of the guest's global scope, derived from its text. */
export interface UrlLibraryReads {
  /** Free identifiers that name a global (bound to their value at prelude time). */
  readonly globals: readonly string[];
  /** Members read from `globalThis` (`globalThis.TextEncoder`, feature checks). */
  readonly globalMembers: readonly string[];
  /**
   * The property names it reads: the prelude captures those of them that the globals, their
   * prototypes and the intrinsic prototypes own.
   */
  readonly keys: readonly string[];
  /** The well-known symbols it reads properties by (`iterator` for `Symbol.iterator`), likewise. */
  readonly symbols: readonly string[];
}

export interface HardenedUrlLibrary {
  /** The rewritten CommonJS text (its globals are the wrapper's bindings). */
  readonly code: string;
  readonly reads: UrlLibraryReads;
}

const ITERABLE_FILLED = new Set(['Set', 'Map']);
const NOT_CAPTURED = new Set(['arguments', 'undefined', 'NaN', 'Infinity']);

/**
 * The built-ins a read like `x.length` may reach as a replaceable getter: the library reads
 * these by name on values that may be typed arrays, buffers, views, Sets, Maps, regexps,
 * symbols or text codecs.
 */
const ACCESSOR_HOLDER_TYPES = [
  'Uint8Array',
  'ArrayBuffer',
  'DataView',
  'Set<unknown>',
  'Map<unknown, unknown>',
  'RegExp',
  'Symbol',
  'Object',
  'TextDecoder',
  'TextEncoder',
];
let accessorNamesMemo: ReadonlySet<string> | undefined;

/**
 * Names of the accessor properties of those built-ins (a read of one is routed), as the
 * TypeScript compiler's own declarations of the language and the web platform give them
 * (a `readonly` member or a `get`): the same on every Node line the bundle is made on.
 */
function builtinAccessorNames(): ReadonlySet<string> {
  if (accessorNamesMemo !== undefined) return accessorNamesMemo;
  const probeName = 'accessor-probe.ts';
  const probe = `declare const probe: [${ACCESSOR_HOLDER_TYPES.join(', ')}];`;
  const options: ts.CompilerOptions = {
    lib: ['lib.esnext.d.ts', 'lib.dom.d.ts'],
    target: ts.ScriptTarget.ESNext,
    types: [],
    noEmit: true,
  };
  const host = ts.createCompilerHost(options);
  const readSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.getSourceFile = (name, language, ...rest) =>
    name === probeName ? ts.createSourceFile(name, probe, language) : readSourceFile(name, language, ...rest);
  host.fileExists = (name) => name === probeName || fileExists(name);
  const program = ts.createProgram([probeName], options, host);
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(probeName);
  const statement = source?.statements[0];
  const declaration =
    statement !== undefined && ts.isVariableStatement(statement)
      ? statement.declarationList.declarations[0]
      : undefined;
  if (declaration === undefined) throw new Error('hardenUrlLibrary: the accessor probe did not parse');
  const tuple = checker.getTypeAtLocation(declaration.name) as ts.TypeReference;
  const names = new Set<string>();
  for (const type of checker.getTypeArguments(tuple))
    for (const property of checker.getPropertiesOfType(type)) {
      const declarations = property.getDeclarations() ?? [];
      const isAccessor =
        declarations.length > 0 &&
        declarations.every(
          (member) =>
            ts.isGetAccessorDeclaration(member) ||
            (ts.isPropertySignature(member) && (ts.getCombinedModifierFlags(member) & ts.ModifierFlags.Readonly) !== 0),
        );
      // Symbol-keyed members (`[Symbol.toStringTag]`) are not read by name.
      if (isAccessor && !property.name.startsWith('__@')) names.add(property.name);
    }
  if (!names.has('length') || !names.has('size')) throw new Error('hardenUrlLibrary: no accessor names found');
  accessorNamesMemo = names;
  return names;
}

function declaredNames(file: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const collect = (node: ts.Node): void => {
    const named = node as ts.Node & { name?: ts.Node };
    if (
      (ts.isVariableDeclaration(node) ||
        ts.isFunctionDeclaration(node) ||
        ts.isFunctionExpression(node) ||
        ts.isClassDeclaration(node) ||
        ts.isClassExpression(node) ||
        ts.isParameter(node) ||
        ts.isBindingElement(node)) &&
      named.name !== undefined &&
      ts.isIdentifier(named.name)
    )
      names.add(named.name.text);
    ts.forEachChild(node, collect);
  };
  collect(file);
  return names;
}

/** Whether an identifier is a reference (not a property name, label or binding key). */
function isReference(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) return false;
  if (ts.isBindingElement(parent) && parent.propertyName === node) return false;
  if (
    (ts.isPropertyAssignment(parent) ||
      ts.isMethodDeclaration(parent) ||
      ts.isPropertyDeclaration(parent) ||
      ts.isGetAccessorDeclaration(parent) ||
      ts.isSetAccessorDeclaration(parent)) &&
    parent.name === node
  )
    return false;
  if (ts.isLabeledStatement(parent) || ts.isBreakOrContinueStatement(parent)) return false;
  if (ts.isVariableDeclaration(parent) || ts.isParameter(parent) || ts.isBindingElement(parent)) return false;
  if (
    (ts.isFunctionDeclaration(parent) || ts.isFunctionExpression(parent) || ts.isClassLike(parent)) &&
    parent.name === node
  )
    return false;
  return true;
}

/** Whether `node` is written to (left of `=`, `++`, `delete`, a for-in/of target). */
function isWritten(node: ts.Node): boolean {
  let current = node;
  let parent = current.parent;
  while (
    ts.isParenthesizedExpression(parent) ||
    ts.isArrayLiteralExpression(parent) ||
    ts.isObjectLiteralExpression(parent) ||
    (ts.isPropertyAssignment(parent) && parent.initializer === current) ||
    ts.isShorthandPropertyAssignment(parent) ||
    ts.isSpreadElement(parent) ||
    ts.isSpreadAssignment(parent)
  ) {
    current = parent;
    parent = current.parent;
  }
  if (ts.isBinaryExpression(parent) && parent.left === current)
    return (
      parent.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      parent.operatorToken.kind <= ts.SyntaxKind.LastAssignment
    );
  if ((ts.isPrefixUnaryExpression(parent) || ts.isPostfixUnaryExpression(parent)) && parent.operand === current)
    return parent.operator === ts.SyntaxKind.PlusPlusToken || parent.operator === ts.SyntaxKind.MinusMinusToken;
  if (ts.isDeleteExpression(parent)) return true;
  if ((ts.isForOfStatement(parent) || ts.isForInStatement(parent)) && parent.initializer === current) return true;
  return false;
}

/** How deep a destructuring pattern takes its value apart by iteration. */
function patternDepth(pattern: ts.Node): number {
  if (ts.isArrayBindingPattern(pattern) || ts.isArrayLiteralExpression(pattern)) {
    let inner = 0;
    for (const element of pattern.elements) {
      const target = ts.isBindingElement(element)
        ? element.name
        : ts.isBinaryExpression(element)
          ? element.left
          : element;
      inner = Math.max(inner, patternDepth(target));
    }
    return 1 + inner;
  }
  return 0;
}

/** The text of a static property name (`a`, `'a'`), or undefined. */
function staticName(name: ts.Node | undefined): string | undefined {
  return name !== undefined && (ts.isIdentifier(name) || ts.isStringLiteral(name)) ? name.text : undefined;
}

/** The names an object destructuring takes, when all are static and it has no rest; else undefined. */
function destructuredNames(pattern: ts.ObjectBindingPattern | ts.ObjectLiteralExpression): string[] | undefined {
  const names: string[] = [];
  if (ts.isObjectBindingPattern(pattern)) {
    for (const element of pattern.elements) {
      const name = element.dotDotDotToken === undefined ? staticName(element.propertyName ?? element.name) : undefined;
      if (name === undefined) return undefined;
      names.push(name);
    }
    return names;
  }
  for (const property of pattern.properties) {
    const name =
      ts.isShorthandPropertyAssignment(property) || ts.isPropertyAssignment(property)
        ? staticName(property.name)
        : undefined;
    if (name === undefined) return undefined;
    names.push(name);
  }
  return names;
}

/** Names read from `object`: `object.name`, `({ name } = object)`, `const { name } = object`. */
function membersRead(object: ts.Identifier): string[] {
  const parent = object.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.expression === object) return [parent.name.text];
  const names: string[] = [];
  if (ts.isBinaryExpression(parent) && parent.right === object && ts.isObjectLiteralExpression(parent.left)) {
    for (const property of parent.left.properties)
      if (
        (ts.isPropertyAssignment(property) || ts.isShorthandPropertyAssignment(property)) &&
        ts.isIdentifier(property.name)
      )
        names.push(property.name.text);
      else throw new Error('hardenUrlLibrary: an unexpected destructuring of globalThis');
  } else if (
    ts.isVariableDeclaration(parent) &&
    parent.initializer === object &&
    ts.isObjectBindingPattern(parent.name)
  ) {
    for (const element of parent.name.elements) {
      const key = element.propertyName ?? element.name;
      if (!ts.isIdentifier(key)) throw new Error('hardenUrlLibrary: an unexpected destructuring of globalThis');
      names.push(key.text);
    }
  } else throw new Error('hardenUrlLibrary: globalThis is read other than by member or destructuring');
  return names;
}

/**
 * Rewrites the library's CommonJS text; see the file comment. `bound` names what the
 * wrapper around it binds (`module`, `exports`, its parameters): not globals.
 */
export function hardenUrlLibrary(code: string, bound: readonly string[]): HardenedUrlLibrary {
  const file = ts.createSourceFile('url-library.js', code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const declared = declaredNames(file);
  const globals = new Set<string>();
  const globalMembers = new Set<string>();
  const accessorNames = builtinAccessorNames();
  for (const name of bound) declared.add(name);
  const isFreeGlobal = (node: ts.Node): node is ts.Identifier =>
    ts.isIdentifier(node) && !declared.has(node.text) && !NOT_CAPTURED.has(node.text) && isReference(node);
  // Names the library calls as methods: a plain read of one (`arr.toBase64 === web64`) may
  // reach a built-in method too, so it is routed like the call.
  const methodNames = new Set<string>();
  const find = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      !ts.isPrivateIdentifier(node.expression.name)
    )
      methodNames.add(node.expression.name.text);
    if (isFreeGlobal(node)) {
      globals.add(node.text);
      if (node.text === 'globalThis') for (const member of membersRead(node)) globalMembers.add(member);
    }
    ts.forEachChild(node, find);
  };
  find(file);

  const keysRead = new Set<string>();
  const symbolsRead = new Set<string>();
  const transformer: ts.TransformerFactory<ts.SourceFile> = (context) => {
    const f = context.factory;
    const helper = (name: string, args: readonly ts.Expression[]): ts.Expression =>
      f.createCallExpression(f.createIdentifier(name), undefined, args);
    const iterate = (expression: ts.Expression, depth: number): ts.Expression =>
      helper(ITER, depth === 0 ? [expression] : [expression, f.createNumericLiteral(depth)]);
    /** Whether an expression is (a member chain rooted at) a captured global. */
    const rootedAtGlobal = (node: ts.Expression): boolean =>
      isFreeGlobal(node) ||
      (ts.isPropertyAccessExpression(node) && !node.questionDotToken && rootedAtGlobal(node.expression));
    const visitExpression = (node: ts.Expression): ts.Expression => ts.visitNode(node, visit) as ts.Expression;
    const visitArguments = (args: ts.NodeArray<ts.Expression> | undefined): ts.Expression[] =>
      (args ?? []).map((arg) => visitExpression(arg));
    /** `value` as the source of a destructuring that takes `names`: `__ptc_pick(value, "a", "b")`. */
    const picked = (value: ts.Expression, names: readonly string[]): ts.Expression => {
      for (const name of names) keysRead.add(name);
      return helper(PICK, [visitExpression(value), ...names.map((name) => f.createStringLiteral(name))]);
    };

    /** `function f([a, b])` → `function f(__ptc_p0) { const [a, b] = __ptc_iter(__ptc_p0); … }`. */
    const unpackParameters = (node: ts.SignatureDeclaration & { body?: ts.ConciseBody }): ts.Node | undefined => {
      if (node.body === undefined || !node.parameters.some((p) => ts.isArrayBindingPattern(p.name))) return undefined;
      const unpack: ts.Statement[] = [];
      const parameters = node.parameters.map((parameter, index) => {
        if (!ts.isArrayBindingPattern(parameter.name)) return visit(parameter) as ts.ParameterDeclaration;
        const name = f.createIdentifier(`__ptc_p${index}`);
        let value: ts.Expression = name;
        if (parameter.initializer !== undefined)
          value = f.createConditionalExpression(
            f.createStrictEquality(name, f.createVoidZero()),
            undefined,
            visitExpression(parameter.initializer),
            undefined,
            name,
          );
        const pattern = ts.visitNode(parameter.name, visit) as ts.ArrayBindingPattern;
        unpack.push(
          f.createVariableStatement(
            undefined,
            f.createVariableDeclarationList(
              [
                f.createVariableDeclaration(
                  pattern,
                  undefined,
                  undefined,
                  iterate(value, patternDepth(parameter.name) - 1),
                ),
              ],
              ts.NodeFlags.Let,
            ),
          ),
        );
        return f.createParameterDeclaration(undefined, parameter.dotDotDotToken, name);
      });
      const body = ts.visitNode(node.body, visit) as ts.ConciseBody;
      const block = ts.isBlock(body)
        ? f.createBlock([...unpack, ...body.statements], true)
        : f.createBlock([...unpack, f.createReturnStatement(body as ts.Expression)], true);
      if (ts.isFunctionDeclaration(node))
        return f.updateFunctionDeclaration(
          node,
          node.modifiers,
          node.asteriskToken,
          node.name,
          node.typeParameters,
          parameters,
          undefined,
          block,
        );
      if (ts.isFunctionExpression(node))
        return f.updateFunctionExpression(
          node,
          node.modifiers,
          node.asteriskToken,
          node.name,
          node.typeParameters,
          parameters,
          undefined,
          block,
        );
      if (ts.isArrowFunction(node))
        return f.updateArrowFunction(
          node,
          node.modifiers,
          node.typeParameters,
          parameters,
          undefined,
          node.equalsGreaterThanToken,
          block,
        );
      if (ts.isMethodDeclaration(node))
        return f.updateMethodDeclaration(
          node,
          node.modifiers,
          node.asteriskToken,
          node.name,
          node.questionToken,
          node.typeParameters,
          parameters,
          undefined,
          block,
        );
      if (ts.isConstructorDeclaration(node))
        return f.updateConstructorDeclaration(node, node.modifiers, parameters, block);
      throw new Error(
        `hardenUrlLibrary: array pattern in the parameters of a ${ts.SyntaxKind[node.kind]}: ${node.getText().slice(0, 120)}`,
      );
    };

    // Long: one case per syntax the guest's engine lacks, each a few lines; a visitor keeps
    // them in one place so that no kind of node is rewritten twice.
    const visit = (node: ts.Node): ts.Node => {
      if (ts.isFunctionLike(node)) {
        const unpacked = unpackParameters(node as ts.SignatureDeclaration & { body?: ts.ConciseBody });
        if (unpacked !== undefined) return unpacked;
      }
      if (ts.isForOfStatement(node) && node.awaitModifier === undefined) {
        const initializer = node.initializer;
        const pattern = ts.isVariableDeclarationList(initializer) ? initializer.declarations[0]?.name : initializer;
        return f.updateForOfStatement(
          node,
          undefined,
          ts.visitNode(initializer, visit) as ts.ForInitializer,
          iterate(visitExpression(node.expression), pattern === undefined ? 0 : patternDepth(pattern)),
          ts.visitNode(node.statement, visit) as ts.Statement,
        );
      }
      if (ts.isTemplateExpression(node) && !ts.isTaggedTemplateExpression(node.parent))
        return f.updateTemplateExpression(
          node,
          node.head,
          node.templateSpans.map((span) =>
            f.updateTemplateSpan(span, helper(TEXT, [visitExpression(span.expression)]), span.literal),
          ),
        );
      if (ts.isSpreadElement(node)) return f.updateSpreadElement(node, iterate(visitExpression(node.expression), 0));
      if (ts.isYieldExpression(node) && node.asteriskToken !== undefined && node.expression !== undefined)
        return f.updateYieldExpression(node, node.asteriskToken, iterate(visitExpression(node.expression), 0));
      if (ts.isVariableDeclaration(node) && ts.isObjectBindingPattern(node.name) && node.initializer !== undefined) {
        const names = destructuredNames(node.name);
        if (names !== undefined)
          return f.updateVariableDeclaration(
            node,
            ts.visitNode(node.name, visit) as ts.BindingName,
            undefined,
            undefined,
            picked(node.initializer, names),
          );
      }
      if (
        ts.isBinaryExpression(node) &&
        node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
        ts.isObjectLiteralExpression(node.left)
      ) {
        const names = destructuredNames(node.left);
        if (names !== undefined)
          return f.updateBinaryExpression(
            node,
            ts.visitNode(node.left, visit) as ts.Expression,
            node.operatorToken,
            picked(node.right, names),
          );
      }
      if (ts.isVariableDeclaration(node) && ts.isArrayBindingPattern(node.name) && node.initializer !== undefined)
        return f.updateVariableDeclaration(
          node,
          ts.visitNode(node.name, visit) as ts.BindingName,
          undefined,
          undefined,
          iterate(visitExpression(node.initializer), patternDepth(node.name) - 1),
        );
      if (ts.isBinaryExpression(node)) {
        const operator = node.operatorToken.kind;
        if (operator === ts.SyntaxKind.EqualsToken && ts.isArrayLiteralExpression(node.left))
          return f.updateBinaryExpression(
            node,
            ts.visitNode(node.left, visit) as ts.Expression,
            node.operatorToken,
            iterate(visitExpression(node.right), patternDepth(node.left) - 1),
          );
        if (operator === ts.SyntaxKind.InstanceOfKeyword)
          return helper(IS_A, [visitExpression(node.left), visitExpression(node.right)]);
      }
      if (
        ts.isNewExpression(node) &&
        ts.isIdentifier(node.expression) &&
        isFreeGlobal(node.expression) &&
        (ITERABLE_FILLED.has(node.expression.text) || /Array$/.test(node.expression.text)) &&
        (node.arguments?.length ?? 0) > 0
      )
        return helper(NEW, [node.expression, ...visitArguments(node.arguments)]);
      if (ts.isCallExpression(node) && node.questionDotToken === undefined) {
        const callee = node.expression;
        if (ts.isPropertyAccessExpression(callee) && callee.expression.kind !== ts.SyntaxKind.SuperKeyword) {
          keysRead.add(callee.name.text);
          const key = f.createStringLiteral(callee.name.text);
          if (callee.questionDotToken === undefined)
            return helper(CALL, [visitExpression(callee.expression), key, ...visitArguments(node.arguments)]);
          if (ts.isIdentifier(callee.expression))
            // `list?.push(x)`: the library's optional calls are on plain identifiers.
            return f.createConditionalExpression(
              f.createEquality(callee.expression, f.createNull()),
              undefined,
              f.createVoidZero(),
              undefined,
              helper(CALL, [callee.expression, key, ...visitArguments(node.arguments)]),
            );
        }
        if (
          ts.isElementAccessExpression(callee) &&
          callee.questionDotToken === undefined &&
          callee.expression.kind !== ts.SyntaxKind.SuperKeyword
        ) {
          const key = callee.argumentExpression;
          if (ts.isPropertyAccessExpression(key) && ts.isIdentifier(key.expression) && key.expression.text === 'Symbol')
            symbolsRead.add(key.name.text);
          return helper(CALL, [
            visitExpression(callee.expression),
            visitExpression(callee.argumentExpression),
            ...visitArguments(node.arguments),
          ]);
        }
      }
      if (
        ts.isPropertyAccessExpression(node) &&
        node.questionDotToken === undefined &&
        node.expression.kind !== ts.SyntaxKind.SuperKeyword &&
        !ts.isPrivateIdentifier(node.name) &&
        !isWritten(node) &&
        !(ts.isCallExpression(node.parent) && node.parent.expression === node) &&
        (rootedAtGlobal(node.expression) || accessorNames.has(node.name.text) || methodNames.has(node.name.text))
      ) {
        keysRead.add(node.name.text);
        return helper(GET, [visitExpression(node.expression), f.createStringLiteral(node.name.text)]);
      }
      return ts.visitEachChild(node, visit, context);
    };
    return (source) => ts.visitEachChild(source, visit, context);
  };
  const result = ts.transform(file, [transformer]);
  const printed = ts.createPrinter({ removeComments: true }).printFile(result.transformed[0] as ts.SourceFile);
  result.dispose();
  return {
    code: printed,
    reads: {
      globals: [...globals].sort(),
      globalMembers: [...globalMembers].sort(),
      keys: [...keysRead].sort(),
      symbols: [...symbolsRead].sort(),
    },
  };
}
