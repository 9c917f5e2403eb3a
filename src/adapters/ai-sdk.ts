// Vercel AI SDK (`ai` >= 7) in both directions: the runtime's tools as a ToolSet for
// generateText/streamText, and AI SDK tool() definitions as our tools.
import { asSchema, jsonSchema, tool, type Tool as AiTool, type ToolSet } from 'ai';
import { defineJsonSchemaTool, type OutsideSchema, type Tool } from '../definition/define-tool.ts';
import { ToolArgsError } from '../errors/tool-args-error.ts';
import type { JsonValue } from '../json/json-value.ts';
import type { ContentBlock, ToolResult } from '../pipeline/tool-result.ts';
import type { AgentRef } from '../registry/tool-registry.ts';
import type { ToolRuntime } from '../runtime/create-tool-runtime.ts';
import { RUN_CODE } from '../registry/tool-registry.ts';
import { createStepTurnBatchers } from './step-turn-batchers.ts';
import { isBlank, nonEmptyText } from './non-empty-text.ts';
import { isRunProgress, streamRunProgress, type RunProgress } from './run-progress-stream.ts';
import { promptText, type RequestOptions } from './prompt-text.ts';
import { OPENAI_MAX_TOOL_NAME, providerToolNames } from './provider-tool-names.ts';

/** What a tool's `toModelOutput` returns. */
export type AiSdkModelOutput = Awaited<ReturnType<NonNullable<AiTool['toModelOutput']>>>;
type JsonSchema7 = Parameters<typeof jsonSchema>[0] & object;
type ModelContentPart = Extract<AiSdkModelOutput, { type: 'content' }>['value'][number];

const textOf = (blocks: readonly ContentBlock[]): string =>
  blocks
    .map((b) => (b.type === 'text' ? b.text : `[image ${b.mimeType}]`))
    .filter((t) => t !== '')
    .join('\n');

const toPart = (block: ContentBlock): ModelContentPart =>
  block.type === 'text'
    ? { type: 'text', text: block.text }
    : { type: 'file', mediaType: block.mimeType, data: { type: 'data', data: block.data } };

/**
 * What the model reads for one result: its content (failures as `error-text`, which
 * providers flag as errors), followed by the result's additional contexts. No text
 * part is empty (providers refuse those): empty text is left out, and a result left
 * with nothing reads `(no output)`.
 */
export function toAiSdkModelOutput(result: ToolResult): AiSdkModelOutput {
  const contexts = (result.additionalContexts ?? []).flatMap((c) => c.content);
  if (result.isError) {
    return {
      type: 'error-text',
      value: nonEmptyText([textOf(result.content), textOf(contexts)].filter((t) => t !== '').join('\n\n')),
    };
  }
  const parts = [...result.content, ...contexts].filter((b) => b.type !== 'text' || !isBlank(b.text)).map(toPart);
  return { type: 'content', value: parts.length === 0 ? [{ type: 'text', text: nonEmptyText('') }] : parts };
}

export interface ToAiSdkToolsOptions {
  /** The agent whose mode, visible tools and policy apply. @default the global scope */
  readonly agent?: AgentRef;
}

/**
 * The runtime's tools for the mode in force, as an AI SDK ToolSet. Each tool's output
 * is the ToolResult (read `value` in your code); the model reads `content` through
 * `toModelOutput`. The calls of one model step that arrive together run as one
 * `rt.executeTurn`, so the turn rules hold (exclusive unless concurrency-safe).
 * One ToolSet may serve any number of conversations at once: their turns do not wait
 * for each other (a step's calls are recognized by the `messages` array they share).
 * In ptc and both modes run_code's description carries the SDK (the default); with
 * `embedSdkInDescription: false` use {@link toAiSdkRequest}, which adds the prompt.
 * Tool names the providers would refuse (outside `^[a-zA-Z0-9_-]{1,64}$`, e.g.
 * `tickets.count`) are keyed by a safe alias; calls still run the registered tool.
 */
export function toAiSdkTools(rt: ToolRuntime, options: ToAiSdkToolsOptions = {}): ToolSet {
  const scope = options.agent === undefined ? {} : { agent: options.agent };
  if (rt.mode(scope) === 'hosted')
    throw new TypeError(
      "toAiSdkTools: hosted mode (the provider runs the model's programs) is built by the Anthropic and OpenAI Responses adapters, not the AI SDK's tool set",
    );
  const turns = createStepTurnBatchers(rt, scope);
  const set: ToolSet = {};
  const schemas = rt.schemas(scope);
  const aliases = providerToolNames(
    schemas.map((s) => s.name),
    OPENAI_MAX_TOOL_NAME,
  );
  for (const projection of schemas) {
    const name = projection.name;
    const key = aliases.get(name) ?? name;
    const aiTool = tool<JsonValue, ToolResult | RunProgress, Record<string, unknown>>({
      description: projection.description,
      inputSchema: jsonSchema<JsonValue>(projection.parameters as JsonSchema7),
      execute: (input, { toolCallId, messages, abortSignal }) => {
        const result = turns.forStep(messages).submit({ callId: toolCallId, name, arguments: input }, abortSignal);
        // run_code streams preliminary results (its log lines and calls) to streamText; the last one is the ToolResult.
        return name === RUN_CODE ? streamRunProgress(rt, toolCallId, result) : result;
      },
      toModelOutput: ({ output }) =>
        isRunProgress(output) ? { type: 'text', value: 'run_code is still running' } : toAiSdkModelOutput(output),
    });
    // Own data property: a tool named "__proto__" must be an ordinary key.
    Object.defineProperty(set, key, { value: aiTool, enumerable: true, writable: true, configurable: true });
  }
  return set;
}

/**
 * What `generateText`/`streamText` need from the runtime, to spread into
 * `generateText({ model, prompt, ...toAiSdkRequest(rt) })`: the ToolSet of
 * {@link toAiSdkTools} and, when `rt.prompt()` has sections (`embedSdkInDescription:
 * false`), `system` with them after your own `options.system`.
 */
export function toAiSdkRequest(rt: ToolRuntime, options: RequestOptions = {}): { tools: ToolSet; system?: string } {
  const system = promptText(rt, options);
  return {
    tools: toAiSdkTools(rt, options.agent === undefined ? {} : { agent: options.agent }),
    ...(system === undefined ? {} : { system }),
  };
}

export interface FromAiSdkToolsOptions {
  /** Which imported tools may overlap others in a turn. @default none (exclusive) */
  readonly isConcurrencySafe?: (name: string, args: JsonValue) => boolean;
}

/**
 * The AI SDK's JSON Schema as a plain object, or undefined when it cannot be converted.
 * The copy drops the non-enumerable `~standard` the AI SDK adds: defineJsonSchemaTool
 * would take it as a Standard Schema and parse the arguments once more (a zod transform
 * would then run twice).
 */
async function convertedSchema(schema: { readonly jsonSchema: unknown }): Promise<OutsideSchema | undefined> {
  try {
    const converted = (await schema.jsonSchema) as unknown;
    return typeof converted === 'object' && converted !== null
      ? ({ ...converted } as OutsideSchema)
      : (converted as OutsideSchema);
  } catch {
    return undefined;
  }
}

const isAsyncIterable = (v: unknown): v is AsyncIterable<unknown> =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';

/**
 * AI SDK tool() definitions → our tools (define only; register them yourself). Input
 * and output schemas (zod or jsonSchema) become full JSON Schema, validated by ajv;
 * the tool's own `validate` still parses the input (zod defaults and transforms
 * apply). A streaming `execute` gives its last value.
 * Throws for provider-executed tools and tools without `execute`.
 */
export async function fromAiSdkTools(tools: ToolSet, options: FromAiSdkToolsOptions = {}): Promise<Tool[]> {
  const out: Tool[] = [];
  for (const name of Object.keys(tools)) {
    const source = tools[name]!;
    if (source.type === 'provider' || typeof source.execute !== 'function') {
      throw new TypeError(
        `fromAiSdkTools: tool "${name}" has no execute function this runtime could call (provider tools are run by the provider)`,
      );
    }
    const execute = source.execute.bind(source);
    const input = asSchema(source.inputSchema);
    // Full JSON Schema in the dialect its `$schema` names (zod via the AI SDK says draft-07).
    // A schema the converter cannot express (zod throws for z.bigint(), z.date(), …) is
    // handed over as it is: defineJsonSchemaTool types it loosely with a warning and
    // parses with its own validate, so one such tool never fails the whole set.
    const inputJson = await convertedSchema(input);
    const parameters = inputJson ?? (source.inputSchema as OutsideSchema);
    const parsedByDefinition = inputJson === undefined;
    const outputSchema =
      source.outputSchema === undefined
        ? undefined
        : ((await convertedSchema(asSchema(source.outputSchema))) ?? (source.outputSchema as OutsideSchema));
    const safe = options.isConcurrencySafe;
    out.push(
      defineJsonSchemaTool({
        name,
        description: typeof source.description === 'string' ? source.description : '',
        parameters,
        output: {
          ...(outputSchema === undefined ? {} : { schema: outputSchema }),
          render: (_args, value) => [
            { type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) },
          ],
        },
        ...(safe === undefined ? {} : { isConcurrencySafe: (args: JsonValue) => safe(name, args) }),
        async execute(args, exec) {
          let parsed: unknown = args;
          if (input.validate !== undefined && !parsedByDefinition) {
            const check = await input.validate(args);
            if (!check.success) throw new ToolArgsError(name, [{ path: '', message: check.error.message }]);
            parsed = check.value;
          }
          let result: unknown = await execute(parsed, {
            toolCallId: exec.callId,
            messages: [],
            abortSignal: exec.signal,
            context: undefined,
          });
          if (isAsyncIterable(result)) {
            let last: unknown = null;
            for await (const chunk of result) last = chunk;
            result = last;
          }
          return (result ?? null) as JsonValue;
        },
      }),
    );
  }
  return out;
}

export type { RequestOptions } from './prompt-text.ts';
export { isRunProgress, type RunProgress } from './run-progress-stream.ts';
