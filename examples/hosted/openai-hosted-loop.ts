// Hosted mode with the OpenAI Responses API: the model writes a program
// (`programmatic_tool_calling`), OpenAI runs it, and each tool the program calls comes
// back as a `function_call` with `caller: { type: 'program', caller_id }` — run through
// the same runtime (policy, journal, spans) as a nested call of that program. Runnable
// against the real API:
//   OPENAI_API_KEY=... node --no-node-snapshot --conditions=ptc-source examples/hosted/openai-hosted-loop.ts
// (optional OPENAI_MODEL); test/adapters/hosted-openai-loop.test.ts drives the same
// loop against a local mock of the Responses API.
import OpenAI from 'openai';
import { pathToFileURL } from 'node:url';
import {
  fromOpenAIResponsesCalls,
  toOpenAIResponsesInput,
  toOpenAIResponsesRequest,
} from 'ptc-runtime/adapters/openai';
import { createToolRuntime, type AgentRef, type ToolRuntime } from 'ptc-runtime';
import { shopTools } from 'ptc-runtime/demo';

/** Model call → tool calls (direct and program-made) through the runtime → outputs back, until the model answers. */
export async function runOpenAIHostedLoop(options: {
  readonly client: OpenAI;
  readonly rt: ToolRuntime;
  readonly question: string;
  readonly model: string;
  readonly agent?: AgentRef;
  readonly maxSteps?: number;
}): Promise<{ readonly answer: string; readonly steps: number }> {
  const { client, rt, agent } = options;
  const scope = agent === undefined ? {} : { agent };
  // One per conversation: the programs it saw.
  const conversation = rt.hostedConversation(scope);
  // The whole conversation goes back each time (no stored responses): program items,
  // with their fingerprints, are returned as they came.
  const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: options.question }];
  try {
    for (let step = 1; step <= (options.maxSteps ?? 10); step += 1) {
      const response = await client.responses.create({
        model: options.model,
        input,
        store: false,
        // programmatic_tool_calling, and each function's allowed_callers / output_schema.
        ...toOpenAIResponsesRequest(rt, scope),
      });
      const calls = fromOpenAIResponsesCalls(response.output, rt, { ...scope, conversation });
      if (calls.length === 0) return { answer: response.output_text, steps: step };
      input.push(
        ...(response.output as OpenAI.Responses.ResponseInputItem[]),
        ...toOpenAIResponsesInput(await rt.executeTurn(calls, { ...scope, conversation }), { conversation }),
      );
    }
    return { answer: '', steps: options.maxSteps ?? 10 };
  } finally {
    await conversation.close();
  }
}

async function main(): Promise<number> {
  const apiKey = process.env.OPENAI_API_KEY;
  if (apiKey === undefined || apiKey === '') {
    console.log('OPENAI_API_KEY is not set: skipping the live hosted-mode loop.');
    return 0;
  }
  const rt = createToolRuntime({ mode: 'hosted', sandbox: false });
  for (const tool of shopTools()) rt.register(tool);
  rt.on('tools/pre-execute', async (exec, next) => {
    console.log(
      `${exec.name} ← ${exec.caller.type === 'program' ? `program ${exec.caller.programId}` : exec.caller.type}`,
    );
    return next();
  });
  const result = await runOpenAIHostedLoop({
    client: new OpenAI({ apiKey }),
    rt,
    model: process.env.OPENAI_MODEL ?? 'gpt-5.5',
    question: 'Which EU customers had an order delivered late in 2024, and how many late orders each?',
  });
  console.log(`${result.answer}\n\n(${result.steps} model calls)`);
  await rt.close();
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = await main();
