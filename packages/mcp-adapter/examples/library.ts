/**
 * Library mode: a developer's own McpServer with many tools, fronted by
 * search_tools / load_toolset. Run it with
 *   npx tsx --conditions=toolsearch-source packages/mcp-adapter/examples/library.ts
 * and point an MCP client at that command (stdio).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { withToolSearch } from '@toolsearch/mcp-adapter';
import { z } from 'zod';

const server = new McpServer({ name: 'my-tools', version: '1.0.0' });

// Tools named `group__tool` are grouped into toolsets by their prefix.
server.registerTool(
  'tickets__create',
  { description: 'Open a support ticket', inputSchema: { title: z.string(), body: z.string() } },
  async ({ title }) => ({ content: [{ type: 'text', text: `opened "${title}"` }] }),
);
server.registerTool(
  'tickets__close',
  { description: 'Close a support ticket by id', inputSchema: { id: z.string() } },
  async ({ id }) => ({ content: [{ type: 'text', text: `closed ${id}` }] }),
);
server.registerTool(
  'billing__refund',
  {
    description: 'Refund a payment to the customer',
    inputSchema: { paymentId: z.string(), cents: z.number().int() },
  },
  async ({ paymentId, cents }) => ({
    content: [{ type: 'text', text: `refunded ${cents} on ${paymentId}` }],
  }),
);
server.registerTool(
  'status__ping',
  { description: 'Check that the service is up', annotations: { readOnlyHint: true } },
  async () => ({ content: [{ type: 'text', text: 'pong' }] }),
);

// Before connect(): hides every tool but status__ping and adds the meta-tools.
const toolSearch = await withToolSearch(server, {
  alwaysLoaded: ['status__ping'],
  maxBoundTools: 20,
});
process.stderr.write(`my-tools: ${toolSearch.catalog.size} tools behind search_tools\n`);

await server.connect(new StdioServerTransport());
