// Tools for the real-client loops: a dotted name as MCP servers use them
// (`tickets.count`, which no provider accepts as a tool name), and a tool whose
// result renders as empty text (`notes.clear`).
import { defineTool, type Tool, type ToolRuntime } from '../../../src/index.ts';

export function ticketTools(): Tool[] {
  return [
    defineTool({
      name: 'tickets.count',
      description: 'Counts support tickets by status.',
      parameters: { status: { type: 'string', enum: ['open', 'closed'], required: true } },
      output: {
        schema: { type: 'integer' },
        render: (args, value) => [{ type: 'text', text: `${value} ${args.status} tickets` }],
      },
      isConcurrencySafe: () => true,
      execute: ({ status }) => (status === 'open' ? 3 : 5),
    }),
    defineTool({
      name: 'notes.clear',
      description: 'Clears the scratch notes; answers with nothing.',
      parameters: {},
      output: { schema: { type: 'string' }, render: (_args, value) => [{ type: 'text', text: value }] },
      execute: () => '',
    }),
  ];
}

export function registerTickets(rt: ToolRuntime): ToolRuntime {
  for (const tool of ticketTools()) rt.register(tool);
  return rt;
}
