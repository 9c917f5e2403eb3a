// Long functions, found by TypeScript's own parser: a function whose body is longer than a
// screen holds more than one step, and a reader cannot see it whole. A function's own lines
// count, not those of the functions nested in it (each measured on its own): a factory whose
// closure holds the private state of short methods reads method by method. One may stay long
// when a comment just above it says why (a line starting `// Long:` or a JSDoc line `Long:`).
import ts from 'typescript';

export const MAX_FUNCTION_LINES = 80;

export interface LongFunction {
  readonly path: string;
  readonly name: string;
  /** 1-based line of the function's start. */
  readonly line: number;
  /** Its own lines: its span less the spans of the functions nested in it. */
  readonly lines: number;
}

type FunctionNode =
  | ts.FunctionDeclaration
  | ts.MethodDeclaration
  | ts.ArrowFunction
  | ts.FunctionExpression
  | ts.ConstructorDeclaration
  | ts.GetAccessorDeclaration
  | ts.SetAccessorDeclaration;

const isFunctionNode = (node: ts.Node): node is FunctionNode =>
  ts.isFunctionDeclaration(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isArrowFunction(node) ||
  ts.isFunctionExpression(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node);

/** The name a reader would search for: the declaration's, or the variable/property it is assigned to. */
function nameOf(node: FunctionNode, source: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name !== undefined) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return parent.name.getText(source);
  }
  return '(anonymous)';
}

/** The statement a reason comment would sit above: the function, or the declaration holding it. */
function anchorOf(node: FunctionNode): ts.Node {
  let anchor: ts.Node = node;
  while (
    ts.isVariableDeclaration(anchor.parent) ||
    ts.isVariableDeclarationList(anchor.parent) ||
    ts.isVariableStatement(anchor.parent) ||
    ts.isPropertyAssignment(anchor.parent) ||
    ts.isPropertyDeclaration(anchor.parent) ||
    ts.isExportAssignment(anchor.parent)
  ) {
    anchor = anchor.parent;
  }
  return anchor;
}

const REASON = /^\s*(\/\/|\*|\/\*\*?)\s*Long:/m;

function hasReason(node: FunctionNode, source: ts.SourceFile): boolean {
  const anchor = anchorOf(node);
  const comments = ts.getLeadingCommentRanges(source.text, anchor.getFullStart()) ?? [];
  return comments.some((range) => REASON.test(source.text.slice(range.pos, range.end)));
}

const spanOf = (node: ts.Node, source: ts.SourceFile): number =>
  source.getLineAndCharacterOfPosition(node.getEnd()).line -
  source.getLineAndCharacterOfPosition(node.getStart(source)).line +
  1;

/** The spans of the functions directly nested in `node` (not those nested in them). */
function nestedSpans(node: ts.Node, source: ts.SourceFile): number {
  let total = 0;
  const walk = (child: ts.Node): void => {
    if (isFunctionNode(child) && child.body !== undefined) total += spanOf(child, source);
    else ts.forEachChild(child, walk);
  };
  ts.forEachChild(node, walk);
  return total;
}

/** Every function in `text` whose own lines exceed the limit, with no reason written above it. */
export function longFunctions(path: string, text: string, max = MAX_FUNCTION_LINES): LongFunction[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunctionNode(node) && node.body !== undefined) {
      const lines = spanOf(node, source) - nestedSpans(node.body, source);
      if (lines > max && !hasReason(node, source)) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        found.push({ path, name: nameOf(node, source), line, lines });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
