#!/usr/bin/env node
/**
 * A stdio MCP server that lists the tools of a JSON file (an array of MCP tool definitions)
 * and does nothing else: the upstream of `pnpm bench --only gateway-start`, standing for a
 * registry of many thousands of tools. Plain JSON-RPC over newline-delimited stdio, no SDK,
 * so that the benchmark times the gateway, not this server.
 *
 *   node registry-server.mjs <tools.json> [pageSize]
 *
 * Answers initialize, ping and tools/list (pages of `pageSize`, default 1000, the cursor
 * being the next offset); any other request gets "method not found" (the gateway's
 * 2026-07-28 probe among them, so it talks 2025-11-25).
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const [file, pageArg] = process.argv.slice(2);
const tools = JSON.parse(readFileSync(file, 'utf8'));
const pageSize = Number(pageArg ?? 1000);

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

function answer(method, params) {
  if (method === 'initialize')
    return {
      protocolVersion: params?.protocolVersion ?? '2025-11-25',
      capabilities: { tools: {} },
      serverInfo: { name: 'registry', version: '1.0.0' },
    };
  if (method === 'ping') return {};
  if (method === 'tools/list') {
    const start = Number(params?.cursor ?? 0);
    const end = start + pageSize;
    return { tools: tools.slice(start, end), ...(end < tools.length ? { nextCursor: String(end) } : {}) };
  }
  return undefined;
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() === '') return;
  const { id, method, params } = JSON.parse(line);
  if (id === undefined) return; // a notification
  const result = answer(method, params);
  if (result === undefined) send({ id, error: { code: -32601, message: `method not found: ${method}` } });
  else send({ id, result });
});
process.stdin.on('end', () => process.exit(0));
