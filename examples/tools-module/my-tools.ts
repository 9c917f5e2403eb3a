// my-tools.ts: a tools module for `ptc --tools` (run, check, sdk, schemas, serve).
import { defineTool, deny, type ToolRuntime } from 'ptc-runtime';
import { lookupOrder } from './orders.ts'; // the .ts extension is required

const getOrder = defineTool({
  name: 'get_order',
  description: 'One order by id.',
  parameters: { id: { type: 'string', required: true } },
  output: {
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        id: { type: 'string', required: true },
        customer: { type: 'string', required: true },
        total: { type: 'number', required: true },
        status: { type: 'string', enum: ['open', 'shipped'], required: true },
      },
    },
    render: (_args, order) => [
      { type: 'text', text: `${order.id}: ${order.customer}, ${order.total} (${order.status})` },
    ],
  },
  isConcurrencySafe: () => true,
  execute: ({ id }) => {
    const order = lookupOrder(id);
    if (order === null) throw new Error(`no order ${id}`); // a TOOL_ERROR result the model reads
    return order;
  },
});

export default function register(rt: ToolRuntime): void {
  rt.register(getOrder);
  // Only the support agent may call get_order: `ptc serve --agent support` serves as that agent.
  const support = rt.createAgent('support');
  rt.restrict(support, { allow: ['get_order'] });
  rt.on('tools/pre-execute', (exec, next) =>
    exec.agent === undefined && exec.name === 'get_order' ? deny('agents only') : next(),
  );
}
