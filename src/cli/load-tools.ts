// `--tools M`: a JS or TS module whose default export is an array of defineTool
// definitions, or a function that receives the runtime and registers them.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Tool } from '../definition/define-tool.ts';
import type { ToolRuntime } from '../runtime/create-tool-runtime.ts';
import { loadErrorPlace, registerErrorPlace } from './locate-load-error.ts';
import { UsageError } from './usage-error.ts';

/** What was thrown, in words: an Error's message, anything else as a string (`throw 'no key'`). */
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export type ToolsModuleExport = readonly Tool[] | ((runtime: ToolRuntime) => unknown);

const isTool = (value: unknown): value is Tool =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Tool).invoke === 'function' &&
  typeof (value as Tool).name === 'string';

/**
 * What to do about the mistakes Node makes common in a tools module: ES module syntax in a
 * CommonJS package, and for .ts a relative import without its extension or TypeScript
 * that is not erasable.
 */
function loadHint(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : '';
  if (code === 'ERR_MODULE_NOT_FOUND' && /Cannot find module '[^']*\/[^/.']+'/.test(message)) {
    return ' (a relative import names its file with the extension, e.g. "./orders.ts")';
  }
  if (/Cannot use import statement outside a module|Unexpected token 'export'/u.test(message)) {
    return ' (Node loads a .js or .ts module as CommonJS in a package without "type": "module", e.g. one made by npm init: name it .mjs or .mts, or set "type": "module" in package.json)';
  }
  if (code === 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX') {
    return " (a .ts tools module runs with Node's type stripping: no enum, namespace, parameter properties or import =)";
  }
  return '';
}

/** Registers the module's tools (or the built-in example tools when `modulePath` is undefined). */
export async function loadTools(runtime: ToolRuntime, modulePath: string | undefined): Promise<void> {
  let exported: unknown;
  if (modulePath === undefined) {
    const { shopTools } = await import('../demo/shop-tools.ts');
    exported = shopTools();
  } else {
    const file = resolve(modulePath);
    if (!existsSync(file)) throw new UsageError(`--tools ${modulePath}: no such file`);
    try {
      exported = ((await import(pathToFileURL(file).href)) as { default?: unknown }).default;
    } catch (error) {
      const where = await loadErrorPlace(file, error);
      throw new UsageError(
        `--tools ${modulePath}: could not load the module: ${where}${messageOf(error).split('\n')[0]}${loadHint(error)}`,
      );
    }
  }
  if (typeof exported === 'function') {
    try {
      await (exported as (rt: ToolRuntime) => unknown)(runtime);
    } catch (error) {
      throw new UsageError(
        `--tools ${modulePath ?? '(built-in)'}: registering the tools failed: ${registerErrorPlace(error)}${messageOf(error)}`,
      );
    }
    return;
  }
  if (!Array.isArray(exported) || !exported.every(isTool)) {
    throw new UsageError(
      `--tools ${modulePath ?? '(built-in)'}: the default export must be an array of defineTool() definitions or a function (runtime) => void`,
    );
  }
  try {
    for (const tool of exported) runtime.register(tool);
  } catch (error) {
    throw new UsageError(`--tools ${modulePath ?? '(built-in)'}: ${(error as Error).message}`);
  }
}

/** One `--mcp-header`, with the index of the `--mcp-url` it follows (-1: none). */
export interface McpHeaderFlag {
  readonly server: number;
  readonly header: string;
}

/** One `--mcp-url-prefix`, with the index of the `--mcp-url` it follows (-1: none). */
export interface McpUrlPrefixFlag {
  readonly server: number;
  readonly prefix: string;
}

/**
 * `--mcp "<command line>"` (repeatable) and `--mcp-prefix <prefix>` (repeatable, paired
 * with the --mcp servers in order); `--mcp-url <url>` (repeatable) with the
 * `--mcp-header "Name: value"` flags that follow it.
 */
export interface McpCliOptions {
  readonly mcp?: readonly string[];
  readonly mcpPrefix?: readonly string[];
  /** `--mcp-env KEY=VALUE` or `--mcp-env KEY` (this process's value), for every --mcp server. */
  readonly mcpEnv?: readonly string[];
  readonly mcpUrl?: readonly string[];
  readonly mcpHeader?: readonly McpHeaderFlag[];
  readonly mcpUrlPrefix?: readonly McpUrlPrefixFlag[];
}

/**
 * The variables `--mcp-env` adds to the stdio servers' environment (the MCP SDK's default
 * subset of ours: HOME, PATH, USER, …). `KEY` alone passes this process's value on.
 */
export function mcpEnvironment(flags: readonly string[], env: NodeJS.ProcessEnv): Record<string, string> {
  const added: Record<string, string> = {};
  for (const flag of flags) {
    const equals = flag.indexOf('=');
    const key = equals < 0 ? flag : flag.slice(0, equals);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/u.test(key)) {
      throw new UsageError(`--mcp-env: expected KEY=VALUE or KEY (a variable name), got ${JSON.stringify(key)}`);
    }
    const value = equals < 0 ? env[key] : flag.slice(equals + 1);
    if (value === undefined) throw new UsageError(`--mcp-env ${key}: ${key} is not set in this environment`);
    added[key] = value;
  }
  return added;
}

/** The --mcp-url servers with their headers. Header values are never echoed (they are usually secrets). */
function urlServers(options: McpCliOptions): { url: string; headers: Record<string, string>; prefix?: string }[] {
  const servers: { url: string; headers: Record<string, string>; prefix?: string }[] = (options.mcpUrl ?? []).map(
    (url) => ({ url, headers: {} }),
  );
  for (const { server, prefix } of options.mcpUrlPrefix ?? []) {
    const target = servers[server];
    if (target === undefined) throw new UsageError('--mcp-url-prefix must follow the --mcp-url whose tools it renames');
    if (target.prefix !== undefined) throw new UsageError('--mcp-url-prefix: one prefix per --mcp-url');
    if (prefix !== '') target.prefix = prefix;
  }
  for (const { server, header } of options.mcpHeader ?? []) {
    const target = servers[server];
    if (target === undefined) throw new UsageError('--mcp-header must follow the --mcp-url it is sent to');
    const colon = header.indexOf(':');
    const name = colon < 0 ? '' : header.slice(0, colon).trim();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/u.test(name)) {
      throw new UsageError(
        `--mcp-header: expected "Name: value" (e.g. "Authorization: Bearer $TOKEN"), got a header without a valid name before ":"`,
      );
    }
    target.headers[name] = header.slice(colon + 1).trim();
  }
  return servers;
}

/**
 * Starts the --mcp servers and registers their tools. Returns the close that stops
 * them (call it in a finally, before closing the runtime). Skipped tools are warned about.
 */
export async function loadMcpServers(
  runtime: ToolRuntime,
  options: McpCliOptions,
  warn: (message: string) => void,
): Promise<() => Promise<void>> {
  const lines = options.mcp ?? [];
  const prefixes = options.mcpPrefix ?? [];
  if (prefixes.length > lines.length) {
    throw new UsageError(
      `--mcp-prefix: ${prefixes.length} prefixes for ${lines.length} --mcp servers (the n-th prefix applies to the n-th --mcp; use "" for none)`,
    );
  }
  const remote = urlServers(options);
  const env = mcpEnvironment(options.mcpEnv ?? [], process.env);
  if (lines.length === 0 && Object.keys(env).length > 0) {
    throw new UsageError('--mcp-env sets variables of the --mcp servers: give it with --mcp "<command line>"');
  }
  if (lines.length === 0 && remote.length === 0) return async () => {};
  // Loaded only when asked for: the MCP SDK stays out of every other command.
  const { importMcpTools, parseCommandLine } = await import('../mcp/index.ts');
  const servers = lines.map((line, i) => {
    try {
      const prefix = prefixes[i];
      return {
        ...parseCommandLine(line),
        ...(Object.keys(env).length === 0 ? {} : { env }),
        ...(prefix === undefined || prefix === '' ? {} : { prefix }),
      };
    } catch (error) {
      throw new UsageError(`--mcp ${JSON.stringify(line)}: ${(error as Error).message}`);
    }
  });
  try {
    const imported = await importMcpTools(runtime, { servers: [...servers, ...remote], onWarning: warn });
    return () => imported.close();
  } catch (error) {
    throw new UsageError(`--mcp: ${(error as Error).message}`);
  }
}
