// Any wire name works: it reaches the `tools` type unchanged (quoted when it is not
// an identifier), type names never collide, and nothing in a name or description
// can escape its string literal or comment.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';
import { RESERVED_TYPE_NAMES } from '../../sdk-gen/allocate-type-names.ts';
import { GLOBAL_TYPE_NAMES } from '../../sdk-gen/global-type-names.ts';
import { GUEST_GLOBALS_DECLARATIONS } from '../../sdk-gen/guest-globals-types.ts';
import { capDescription, checkProgram, generateSdk } from '../../sdk-gen/index.ts';
import type { ToolSchema } from '../../sdk-gen/index.ts';

const KEYWORDS = [
  'break',
  'case',
  'catch',
  'class',
  'const',
  'continue',
  'debugger',
  'default',
  'delete',
  'do',
  'else',
  'enum',
  'export',
  'extends',
  'false',
  'finally',
  'for',
  'function',
  'if',
  'import',
  'in',
  'instanceof',
  'new',
  'null',
  'return',
  'super',
  'switch',
  'this',
  'throw',
  'true',
  'try',
  'typeof',
  'var',
  'void',
  'while',
  'with',
  'as',
  'implements',
  'interface',
  'let',
  'package',
  'private',
  'protected',
  'public',
  'static',
  'yield',
  'any',
  'boolean',
  'constructor',
  'declare',
  'get',
  'set',
  'module',
  'require',
  'number',
  'string',
  'symbol',
  'type',
  'from',
  'of',
  'readonly',
  'keyof',
  'unique',
  'infer',
  'is',
  'asserts',
  'abstract',
  'async',
  'await',
  'accessor',
  'satisfies',
  'out',
  'override',
  'namespace',
  'global',
  'never',
  'unknown',
  'object',
  'undefined',
  'bigint',
];
const ODD_NAMES = [
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__proto__',
  'prototype',
  'x-y',
  'x_y',
  'x.y',
  'x y',
  'X-Y',
  'xY',
  '3d',
  '',
  ' ',
  'café',
  '名前',
  '🙂',
  'a"b',
  "a'b",
  'a\\b',
  'line\nbreak',
  'tab\there',
  '\u2028',
  '*/',
  '/*',
  '`${x}`',
  '</script>',
  'iterator',
  'promise_settled',
  'JsonValue',
  'ToolCallError',
  'tools',
  'Tool',
  'tool2',
  '\ud800',
  'x'.repeat(300),
];
const NAMES = [...new Set([...KEYWORDS, ...ODD_NAMES])];

/** Tools with these names; `recursive`: their schemas refer to themselves, so their roots are named types. */
function toolsFor(names: readonly string[], recursive = false): ToolSchema[] {
  const self = recursive ? { again: { $ref: '#' } } : {};
  return names.map((name) => ({
    name,
    description: `Tool ${name}.`,
    parameters: { type: 'object', properties: { id: { type: 'string' }, ...self }, required: ['id'] },
    outputSchema: {
      type: 'object',
      properties: { ok: { type: 'boolean' }, ...self },
      required: ['ok'],
      additionalProperties: false,
    },
  }));
}

interface Member {
  readonly name: string;
  readonly argsType: string;
  readonly resultType: string;
}

/** The members of `declare const tools` (`name: Tool<Args, Result>`), read back by TypeScript's own parser. */
function toolsMembers(sdk: string): Member[] {
  const file = ts.createSourceFile('sdk.ts', sdk, ts.ScriptTarget.ES2023, true);
  const statement = file.statements.find(
    (node): node is ts.VariableStatement =>
      ts.isVariableStatement(node) && node.declarationList.declarations[0]?.name.getText(file) === 'tools',
  );
  const literal = statement?.declarationList.declarations[0]?.type;
  if (literal === undefined || !ts.isTypeLiteralNode(literal)) throw new Error('no tools type literal');
  return literal.members.map((member) => {
    const type = ts.isPropertySignature(member) ? member.type : undefined;
    if (type === undefined || !ts.isTypeReferenceNode(type) || type.typeName.getText(file) !== 'Tool')
      throw new Error(`not a Tool member: ${member.getText(file)}`);
    const name = member.name;
    if (name === undefined || (!ts.isIdentifier(name) && !ts.isStringLiteral(name)))
      throw new Error(`odd name node: ${member.getText(file)}`);
    const [args, result] = type.typeArguments ?? [];
    return {
      name: name.text,
      argsType: args?.getText(file) ?? '',
      resultType: result?.getText(file) ?? 'JsonValue',
    };
  });
}

function declaredTypeNames(sdk: string): string[] {
  const file = ts.createSourceFile('sdk.ts', sdk, ts.ScriptTarget.ES2023, true);
  return file.statements.filter(ts.isTypeAliasDeclaration).map((node) => node.name.text);
}

describe('tool names', () => {
  const sdk = generateSdk(toolsFor(NAMES));

  it('keeps every wire name exactly, one method each', () => {
    const members = toolsMembers(sdk);
    expect(members.map((member) => member.name).sort()).toEqual([...NAMES].sort());
  });

  it('types every tool in place, and gives each named type its own name', () => {
    const members = toolsMembers(sdk);
    expect(new Set(members.map((member) => member.argsType))).toEqual(new Set(['{ id: string }']));
    expect(new Set(members.map((member) => member.resultType))).toEqual(new Set(['{ ok: boolean }']));
    expect(declaredTypeNames(sdk)).toEqual(['JsonValue', 'Tool']);
    const recursive = declaredTypeNames(generateSdk(toolsFor(NAMES, true)));
    expect(new Set(recursive).size).toBe(recursive.length);
    expect(recursive).toHaveLength(2 * NAMES.length + 2);
  });

  it('names types apart when wire names differ only in non-identifier characters', () => {
    const members = toolsMembers(generateSdk(toolsFor(['x-y', 'x.y', 'x_y', 'x y', 'XY', 'x_y2'], true)));
    expect(members.map((member) => [member.name, member.argsType])).toEqual([
      ['XY', 'XYArgs'],
      ['x y', 'XY2Args'],
      ['x-y', 'XY3Args'],
      ['x.y', 'XY4Args'],
      ['x_y', 'XY5Args'],
      // Its natural base XY2 is taken by "x y": the suffix goes on top.
      ['x_y2', 'XY22Args'],
    ]);
  });

  it('never redeclares a lib type such as IteratorResult', () => {
    const members = toolsMembers(generateSdk(toolsFor(['iterator', 'promise_settled'], true)));
    expect(members.map((member) => member.resultType)).toEqual(['Iterator2Result', 'PromiseSettled2Result']);
  });

  it('reserves every ES lib type whose name ends in Args or Result', () => {
    const libDir = path.dirname(ts.getDefaultLibFilePath({}));
    const libNames = new Set<string>();
    for (const file of readdirSync(libDir).filter((name) => /^lib\.(es|decorators).*\.d\.ts$/.test(name))) {
      const text = readFileSync(path.join(libDir, file), 'utf8');
      for (const match of text.matchAll(/\b(?:interface|type|class)\s+([A-Za-z_$][\w$]*(?:Args|Result))\b/g)) {
        libNames.add(match[1] ?? '');
      }
    }
    expect(libNames.size).toBeGreaterThan(0);
    for (const name of libNames) expect(RESERVED_TYPE_NAMES).toContain(name);
  });

  it('keeps every global type name of the ES lib files and the guest globals out of the names it declares', () => {
    const libDir = path.dirname(ts.getDefaultLibFilePath({}));
    const texts = readdirSync(libDir)
      .filter((name) => /^lib\.(es|decorators).*\.d\.ts$/.test(name))
      .map((name) => readFileSync(path.join(libDir, name), 'utf8'));
    const globals = new Set<string>();
    for (const text of [...texts, GUEST_GLOBALS_DECLARATIONS]) {
      for (const match of text.matchAll(
        /^(?:declare\s+)?(?:interface|type|class|namespace|enum)\s+([A-Za-z_$][\w$]*)/gm,
      ))
        globals.add(match[1] ?? '');
    }
    expect(globals.size).toBeGreaterThan(150);
    for (const name of globals) expect(GLOBAL_TYPE_NAMES).toContain(name);
    // A shared type that would be called Date is not.
    const date = {
      type: 'object',
      properties: { year: { type: 'integer' }, month: { type: 'integer' } },
      required: ['year', 'month'],
    };
    const sdk = generateSdk(
      ['a', 'b'].map((name) => ({ name, description: '', parameters: { type: 'object', properties: { date } } })),
    );
    expect(declaredTypeNames(sdk)).toEqual(['JsonValue', 'Tool', 'Date2']);
    expect(
      checkProgram(sdk, 'await tools.a({ date: { year: 2026, month: 12 } });\nreturn new Date().getFullYear();'),
    ).toEqual([]);
  });

  it('type-checks a program that calls every tool by bracket access with its wire name', () => {
    const program = NAMES.map(
      (name, index) =>
        `const r${index} = await tools[${JSON.stringify(name)}]({ id: "1" });\nif (!r${index}.ok) return ${index};`,
    ).join('\n');
    expect(checkProgram(sdk, program)).toEqual([]);
  });

  it('type-checks dot access for names that are identifiers, keywords and Object.prototype members included', () => {
    const program = [
      'toString',
      'valueOf',
      'hasOwnProperty',
      '__proto__',
      'constructor',
      'delete',
      'new',
      'class',
      'get',
      'await',
    ]
      .map((name) => `await tools.${name}({ id: "1" });`)
      .join('\n');
    expect(checkProgram(sdk, program)).toEqual([]);
  });

  it('rejects a misspelt name', () => {
    const [diagnostic] = checkProgram(sdk, 'await tools["x-z"]({ id: "1" });');
    expect(diagnostic?.code).toBe(7053);
  });
});

describe('adversarial descriptions and literals', () => {
  const nasty = [
    '*/ declare const evil: number; /*',
    'Ends with a star *',
    '/** nested */ comment',
    '`template ${literal}` and \\` escapes',
    'line one\nline two\r\n\tline three\u2028line four\u2029end',
    '// not a comment\n declare const evil2: string;',
    '\u0000\u0007\u001b[31m control \u0085 chars',
    'lone \ud800 surrogate',
    `${'long text '.repeat(10_000)}*/`,
  ];
  const tools: ToolSchema[] = nasty.map((description, index) => ({
    name: `tool_${index}${description.slice(0, 12)}`,
    description,
    parameters: {
      type: 'object',
      properties: {
        [description.slice(0, 40)]: { type: 'string', description, enum: [description, `${description}"'\``] },
      },
      additionalProperties: false,
    },
    outputSchema: { const: description },
  }));
  tools.push({ name: 'deferred', description: nasty.join(' '), parameters: true, deferLoading: true });
  const sdk = generateSdk(tools);
  const file = ts.createSourceFile('sdk.ts', sdk, ts.ScriptTarget.ES2023, true);

  it('type-checks', () => {
    expect(checkProgram(sdk, '')).toEqual([]);
  });

  it('declares exactly the expected statements and nothing smuggled in', () => {
    const kinds = file.statements.map((statement) => {
      if (ts.isTypeAliasDeclaration(statement)) return 'type';
      if (ts.isClassDeclaration(statement)) return 'class';
      return ts.isVariableStatement(statement) ? 'const' : 'other';
    });
    // JsonValue, ToolCallError, Tool, the Deferred type, then tools (each tool typed in place).
    expect(kinds).toEqual(['type', 'class', 'type', 'type', 'const']);
    expect(sdk).not.toMatch(/^\s*declare const evil/m);
  });

  it('keeps each description in one doc comment on one line (the long one capped, with a marker)', () => {
    const expected = (text: string): string =>
      capDescription(
        text
          // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
          .replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')
          .replace(/\s+/g, ' ')
          .trim()
          .replace(/\ud800/g, '\ufffd'),
      ).replaceAll('*/', '*\\/');
    expect(expected(nasty.at(-1) ?? '')).toMatch(/^(long text ){406}long text… \(truncated, 95933 chars\)$/);
    const literal = file.statements.find(ts.isVariableStatement)?.declarationList.declarations[0]?.type;
    if (literal === undefined || !ts.isTypeLiteralNode(literal)) throw new Error('no tools type literal');
    // The hostile tools, then the deferred one (after its heading comment), then $describe and $search.
    expect(literal.members).toHaveLength(nasty.length + 3);
    literal.members.slice(0, nasty.length).forEach((member, index) => {
      const comments = (ts.getLeadingCommentRanges(sdk, member.pos) ?? []).map((range) =>
        sdk.slice(range.pos, range.end),
      );
      expect(comments).toEqual([`/** ${expected(nasty[index] ?? '')} */`]);
    });
    const deferredMember = literal.members[nasty.length]!;
    const deferredComments = (ts.getLeadingCommentRanges(sdk, deferredMember.pos) ?? []).map((range) =>
      sdk.slice(range.pos, range.end),
    );
    expect(deferredComments).toHaveLength(2); // the deferred heading, then one summary doc comment
    expect(deferredComments[1]).toMatch(/^\/\*\* [^\n]*… \*\/$/);
    expect(deferredComments[1]!.slice(3, -2)).not.toContain('*/');
    // No line holds a raw line terminator, and every line is layout, a comment, a
    // declaration or a member.
    for (const line of sdk.split('\n')) {
      expect(line).toMatch(/^(|\s*\/\/ .*|type .*|declare .*|\s+\/\*\* .*|\s+[\w"$].*|\s*}.*)$/);
    }
  });

  it('round-trips enum literals through the parser', () => {
    const literal = file.statements.find(ts.isVariableStatement)?.declarationList.declarations[0]?.type;
    if (literal === undefined || !ts.isTypeLiteralNode(literal)) throw new Error('no tools type literal');
    const args = literal.members.flatMap((member) => {
      const type = ts.isPropertySignature(member) ? member.type : undefined;
      return type !== undefined && ts.isTypeReferenceNode(type) ? (type.typeArguments?.slice(0, 1) ?? []) : [];
    });
    const literals = args.flatMap((node) => {
      const found: string[] = [];
      const visit = (child: ts.Node): void => {
        if (ts.isLiteralTypeNode(child) && ts.isStringLiteral(child.literal)) found.push(child.literal.text);
        ts.forEachChild(child, visit);
      };
      visit(node);
      return found;
    });
    expect(literals.sort()).toEqual(nasty.flatMap((text) => [text, `${text}"'\``]).sort());
  });
});
