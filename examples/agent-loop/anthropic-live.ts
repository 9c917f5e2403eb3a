// The agent loop wired to the real Anthropic API, over the shop example tools in ptc
// mode. Runs only with ANTHROPIC_API_KEY set; otherwise it says so and exits 0.
//   ANTHROPIC_API_KEY=... node --no-node-snapshot --conditions=ptc-source examples/agent-loop/anthropic-live.ts
// Optional: ANTHROPIC_MODEL (default claude-sonnet-4-5).
import Anthropic from '@anthropic-ai/sdk';
import { pathToFileURL } from 'node:url';
import { createToolRuntime } from 'ptc-runtime';
import { shopTools } from 'ptc-runtime/demo';
import { runAgentLoop, type AssistantBlock, type Model } from './agent-loop.ts';

export const SKIP_MESSAGE = 'ANTHROPIC_API_KEY is not set: skipping the live Anthropic agent loop.';

const QUESTION =
  'Which EU customers had an order delivered later than promised in 2024? For each, give the customer name and how many of their orders were late.';

export function anthropicModel(client: Anthropic, modelId: string): Model {
  return async (request) => {
    const response = await client.messages.create({
      model: modelId,
      max_tokens: 4096,
      system: request.system,
      messages: [...request.messages],
      tools: request.tools,
    });
    const content = response.content.flatMap((b): AssistantBlock[] => {
      if (b.type === 'text') return [{ type: 'text', text: b.text }];
      if (b.type === 'tool_use') return [{ type: 'tool_use', id: b.id, name: b.name, input: b.input }];
      return [];
    });
    return { content };
  };
}

async function main(): Promise<number> {
  const apiKey = process.env.ANTHROPIC_API_KEY;
  if (apiKey === undefined || apiKey === '') {
    console.log(SKIP_MESSAGE);
    return 0;
  }
  const rt = createToolRuntime({ mode: 'ptc' });
  try {
    for (const tool of shopTools()) rt.register(tool);
    const model = anthropicModel(new Anthropic({ apiKey }), process.env.ANTHROPIC_MODEL ?? 'claude-sonnet-4-5');
    const result = await runAgentLoop({ rt, model, question: QUESTION, maxSteps: 8 });
    console.log(`${result.answer}\n\n(${result.steps} model calls, stopped by ${result.stoppedBy})`);
    return result.stoppedBy === 'max-steps' ? 1 : 0;
  } finally {
    await rt.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = await main();
