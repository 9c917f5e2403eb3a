// Every run_code program the README and docs/*.md show passes `ptc check` against the SDK of the
// tools it is written for: the shop example tools (`echo '…' | ptc run -` and the MCP
// request), the reference filesystem MCP server's tools (`--mcp …server-filesystem`),
// and the quick start's own get_weather tool. A program shown with the diagnostic it
// gets (a `# line:column message` comment after it) must get exactly that.
import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { shopTools } from '../../src/demo/shop-tools.ts';
import { checkProgram } from '../../sdk-gen/index.ts';
import { createToolRuntime } from '../../src/index.ts';
import { importMcpTools } from '../../src/mcp/index.ts';
import { commandLine, FS } from '../mcp/helpers.ts';
import { blocksOf, documents } from './doc-blocks.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const readme = documents()
  .map((doc) => readFileSync(join(root, doc), 'utf8'))
  .join('\n');

interface ShownProgram {
  readonly program: string;
  readonly mcp: string | undefined;
  /** `line:column message` lines the README says `ptc check` prints. */
  readonly expected: string[];
}

/** `echo '<program>' | ptc run|check - [--mcp "…"]`, with any `# …` diagnostics that follow. */
function shellPrograms(): ShownProgram[] {
  const found: ShownProgram[] = [];
  const pattern = /echo '([^']*)'\s*\\?\s*\|\s*ptc (?:run|check) -([^\n]*)\n((?:# \d+:\d+ [^\n]*\n)*)/g;
  for (const match of readme.matchAll(pattern)) {
    const mcp = /--mcp "([^"]+)"/.exec(match[2]!)?.[1];
    if (match[2]!.includes('--tools')) continue; // run by the documentation test with its own tools
    found.push({
      program: match[1]!,
      mcp,
      expected: match[3]!
        .split('\n')
        .filter(Boolean)
        .map((line) => line.slice(2)),
    });
  }
  return found;
}

/** The `code` of run_code calls in the README's JSON-RPC examples. */
function jsonRpcPrograms(): string[] {
  return [...readme.matchAll(/'(\{"jsonrpc":"2\.0","id":\d+,"method":"tools\/call"[^\n]*\})'/g)]
    .map((match) => JSON.parse(match[1]!) as { params: { name: string; arguments: { code?: string } } })
    .filter((call) => call.params.name === 'run_code')
    .map((call) => call.params.arguments.code ?? '');
}

const format = (program: string, sdk: string): string[] =>
  checkProgram(sdk, program).map((d) => `${d.line}:${d.column} ${d.message}`);

describe('README programs pass ptc check', () => {
  let closeMcp = async (): Promise<void> => {};
  afterAll(async () => {
    await closeMcp();
  });

  it('finds the programs it checks', () => {
    expect(shellPrograms().length).toBeGreaterThanOrEqual(3);
    expect(jsonRpcPrograms().length).toBeGreaterThanOrEqual(1);
  });

  it('the shop programs', () => {
    const rt = createToolRuntime({ sandbox: false });
    for (const tool of shopTools()) rt.register(tool);
    const sdk = rt.sdk();
    const programs = [
      ...shellPrograms().filter((p) => p.mcp === undefined),
      ...jsonRpcPrograms().map((program) => ({ program, expected: [] })),
    ];
    expect(programs.length).toBeGreaterThanOrEqual(2);
    for (const { program, expected } of programs)
      expect({ program, diagnostics: format(program, sdk) }).toEqual({ program, diagnostics: expected });
  });

  it('the filesystem MCP server programs', async () => {
    const files = createToolRuntime({ sandbox: false });
    const imported = await importMcpTools(files, { servers: [commandLine(FS.entry, root)] });
    closeMcp = () => imported.close();
    const sdk = files.sdk();
    const programs = shellPrograms().filter((p) => p.mcp?.includes('server-filesystem') === true);
    expect(programs.length).toBeGreaterThanOrEqual(2);
    for (const { program, expected } of programs)
      expect({ program, diagnostics: format(program, sdk) }).toEqual({ program, diagnostics: expected });
  });

  it("the quick start program, against the quick start's own tool", () => {
    const block = blocksOf('README.md').find((b) => b.language === 'ts' && b.code.includes('get_weather'))?.code ?? '';
    const code = /code: `([\s\S]*?)`,/.exec(block)?.[1];
    expect(code).toContain('catch (e) { console.log(e.code); }');
    // The example up to its first model-facing line defines and registers the tool; print that runtime's SDK.
    const setup = block
      .slice(0, block.indexOf('console.log(rt.schemas()'))
      .replace(/from 'ptc-runtime'/g, `from '${pathToFileURL(join(root, 'src/index.ts')).href}'`);
    const file = join(mkdtempSync(join(tmpdir(), 'ptc-readme-')), 'sdk.ts');
    writeFileSync(file, `${setup}\nprocess.stdout.write(rt.sdk());\nawait rt.close();\n`);
    const sdk = execFileSync(process.execPath, ['--no-node-snapshot', '--disable-warning=ExperimentalWarning', file], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(sdk).toContain(' get_weather: Tool<');
    expect(format(code!, sdk)).toEqual([]);
  });
});
