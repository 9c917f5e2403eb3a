// my-tools.ts: a tools module for `ptc --tools` (run, check, sdk, schemas, serve).
import { defineTool, deny, type ToolRuntime } from 'ptc-runtime';
import { lookupOrder } from './orders.ts'; // the .ts extension is required

const getOrder = defineTool({
  name: 'get_order',
  description: 'One order by id, or null when there is none.',
  parameters: { id: { type: 'string', required: true } },
  output: { schema: { type: 'json' }, render: (_args, order) => [{ type: 'text', text: JSON.stringify(order) }] },
  isConcurrencySafe: () => true,
  execute: ({ id }) => lookupOrder(id),
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
