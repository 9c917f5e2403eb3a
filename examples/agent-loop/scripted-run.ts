// The agent loop driven by a scripted model (no API key): in ptc mode the model writes one
// program against the SDK it was sent, reads the program's output and answers.
//   bash scripts/example.sh examples/agent-loop/scripted-run.ts
import { createToolRuntime } from 'ptc-runtime';
import { shopTools } from 'ptc-runtime/demo';
import { type LoopMessage, runAgentLoop } from './agent-loop.ts';
import { createScriptedModel } from './scripted-model.ts';

/** The text of the tool_result answering `id` in the last message. */
function toolResultText(messages: readonly LoopMessage[], id: string): string {
  const last = messages[messages.length - 1];
  if (last === undefined || typeof last.content === 'string') return '';
  const block = last.content.find((b) => b.type === 'tool_result' && b.tool_use_id === id);
  return block?.type === 'tool_result' ? block.content.map((c) => (c.type === 'text' ? c.text : '')).join('') : '';
}

const rt = createToolRuntime({ mode: 'ptc' });
for (const tool of shopTools()) rt.register(tool);
const model = createScriptedModel([
  [
    { type: 'text', text: 'I will count them in one program.' },
    {
      type: 'tool_use',
      id: 'tu_1',
      name: 'run_code',
      input: {
        description: 'Count EU customers with an order',
        code: `const eu = await tools.list_customers({ region: 'EU' });
const orders = await Promise.all(eu.map((c) => tools.list_orders({ customerId: c.id })));
return eu.filter((_, i) => orders[i].length > 0).length;`,
      },
    },
  ],
  (request) => [
    { type: 'text', text: `${toolResultText(request.messages, 'tu_1')} EU customers have placed an order.` },
  ],
]);
try {
  const result = await runAgentLoop({ rt, model, question: 'How many EU customers have placed an order?' });
  const sent = model.requests[0]?.tools.map((t) => t.name).join(', ');
  console.log(`tools sent to the model: ${sent}`);
  console.log(`answer after ${result.steps} model calls (${result.stoppedBy}): ${result.answer}`);
} finally {
  await rt.close();
}
