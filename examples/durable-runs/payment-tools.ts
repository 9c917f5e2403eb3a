// payment-tools.ts: a tools module whose transfers wait for a human (`ptc run --approval pause`).
import { ask, defineTool, type ToolRuntime } from 'ptc-runtime';

const transfer = defineTool({
  name: 'transfer',
  description: 'Sends money to a person.',
  parameters: { to: { type: 'string', required: true }, amount: { type: 'number', required: true } },
  output: {
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: { to: { type: 'string', required: true }, amount: { type: 'number', required: true } },
    },
    render: (_args, sent) => [{ type: 'text', text: `sent ${sent.amount} to ${sent.to}` }],
  },
  execute: ({ to, amount }) => ({ to, amount }),
});

export default function register(rt: ToolRuntime): void {
  rt.register(transfer);
  // Every transfer asks first; with `--approval pause` the question pauses the run.
  rt.on('tools/pre-execute', (exec, next) =>
    exec.name === 'transfer' ? ask({ title: `Send money: ${JSON.stringify(exec.arguments)}?` }) : next(),
  );
}
