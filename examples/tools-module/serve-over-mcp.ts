// `ptc serve` over the tools module, as an MCP client sees it: the server runs as the
// `support` agent (`--agent support`), so the module's policy lets get_order through.
//   bash scripts/example.sh examples/tools-module/serve-over-mcp.ts
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fileURLToPath } from 'node:url';

const ptc = fileURLToPath(new URL('../../bin/ptc.js', import.meta.url));
const tools = fileURLToPath(new URL('./my-tools.ts', import.meta.url));
const client = new Client({ name: 'example', version: '1.0.0' });
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: ['--no-node-snapshot', ptc, 'serve', '--tools', tools, '--agent', 'support', '--mode', 'both'],
  }),
);
try {
  const listed = await client.listTools();
  console.log(`tools: ${listed.tools.map((t) => t.name).join(', ')}`);
  const direct = await client.callTool({ name: 'get_order', arguments: { id: 'o_1' } });
  if (direct.isError === true) throw new Error(`get_order failed: ${JSON.stringify(direct.content)}`);
  console.log(`get_order: ${JSON.stringify(direct.structuredContent)}`);
  const program = await client.callTool({
    name: 'run_code',
    arguments: {
      description: 'Two orders',
      code: 'return Promise.all(["o_1", "o_2"].map((id) => tools.get_order({ id })));',
    },
  });
  console.log(`run_code: ${JSON.stringify(program.structuredContent)}`);
} finally {
  await client.close();
}
