// Hosted mode with Anthropic: Claude writes a program, Anthropic's code execution tool
// runs it, and each tool the program calls comes back here as a `tool_use` with a
// `caller` — run through the same runtime (policy, journal, spans) as a nested call of
// that program. Runnable against the real API:
//   ANTHROPIC_API_KEY=... node --no-node-snapshot --conditions=ptc-source examples/hosted/anthropic-hosted-loop.ts
// (optional ANTHROPIC_MODEL, default claude-sonnet-4-5); test/adapters/hosted-anthropic-loop.test.ts
// drives the same loop against a local mock of the Messages API.
import Anthropic from '@anthropic-ai/sdk';
import { pathToFileURL } from 'node:url';
import { fromAnthropicToolUses, toAnthropicRequest, toAnthropicUserMessage } from 'ptc-runtime/adapters/anthropic';
import { createToolRuntime, type AgentRef, type ToolRuntime } from 'ptc-runtime';
import { shopTools } from 'ptc-runtime/demo';

export interface HostedLoopResult {
  /** The final text of the model. */
  readonly answer: string;
  /** Model calls made. */
  readonly steps: number;
  /** Every request sent, for inspection. */
  readonly messages: Anthropic.MessageParam[];
}

/** Model call → tool calls (direct and program-made) through the runtime → results back, until the model answers. */
export async function runAnthropicHostedLoop(options: {
  readonly client: Anthropic;
  readonly rt: ToolRuntime;
  readonly question: string;
  readonly model: string;
  readonly agent?: AgentRef;
  readonly maxSteps?: number;
}): Promise<HostedLoopResult> {
  const { client, rt, agent } = options;
  const scope = agent === undefined ? {} : { agent };
  // One per conversation: the programs it saw, and the container they run in.
  const conversation = rt.hostedConversation(scope);
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: options.question }];
  try {
    for (let step = 1; step <= (options.maxSteps ?? 10); step += 1) {
      const response = await client.messages.create({
        model: options.model,
        max_tokens: 4096,
        messages,
        // The code execution tool, each tool's allowed_callers, and (once known) the container.
        ...toAnthropicRequest(rt, { ...scope, conversation }),
      });
      messages.push({ role: 'assistant', content: response.content });
      const calls = fromAnthropicToolUses(response, rt, { ...scope, conversation });
      if (calls.length === 0) {
        const answer = response.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
        return { answer, steps: step, messages };
      }
      const turn = await rt.executeTurn(calls, { ...scope, conversation });
      messages.push(toAnthropicUserMessage(turn, { conversation }));
    }
    return { answer: '', steps: options.maxSteps ?? 10, messages };
  } finally {
    await conversation.close();
  }
}

async function main(): Promise<number> {
  const apiKey = process.env.ANTHROPIC_API_KEY;
  if (apiKey === undefined || apiKey === '') {
    console.log('ANTHROPIC_API_KEY is not set: skipping the live hosted-mode loop.');
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
  const result = await runAnthropicHostedLoop({
    client: new Anthropic({ apiKey }),
    rt,
    model: process.env.ANTHROPIC_MODEL ?? 'claude-sonnet-4-5',
    question: 'Which EU customers had an order delivered late in 2024, and how many late orders each?',
  });
  console.log(`${result.answer}\n\n(${result.steps} model calls)`);
  await rt.close();
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = await main();
