/**
 * The README's library example, type-checked with the package. Run it with
 *   npx tsx --conditions=toolsearch-source packages/core-search/examples/quickstart.ts
 */
import { isToolSearchError, type ToolDefinition, ToolSearch } from '@toolsearch/core-search';

// Tools as an MCP server's tools/list returns them; `server__tool` names give the toolset.
const tools: ToolDefinition[] = [
  {
    name: 'browser__take_screenshot',
    description: 'Take a screenshot of the current page',
    inputSchema: { type: 'object', properties: { fullPage: { type: 'boolean' } } },
  },
  {
    name: 'github__create_pull_request',
    description: 'Open a pull request from a branch',
    inputSchema: { type: 'object', properties: { head: { type: 'string' }, base: { type: 'string' } } },
  },
  {
    name: 'github__create_issue',
    description: 'Create a new issue in a repository',
    tags: ['bug', 'ticket'],
  },
];

const engine = new ToolSearch({ tools }); // lexical strategies answer at once
await engine.ready(); // optional: wait for the bundled embedding model

const { results, toolsets } = await engine.search('file a bug about the login page', { limit: 3 });
for (const hit of results) {
  console.log(hit.name, hit.score.toFixed(4), hit.summary, hit.matchedBy.map((m) => m.strategy).join(','));
}
console.log('suggested toolset:', toolsets[0]?.toolset);

engine.add([{ name: 'slack__post_message', description: 'Post a message to a Slack channel' }]);
engine.remove(['github__create_issue']);

try {
  engine.add([{ name: '', description: 'broken' }]);
} catch (error) {
  if (isToolSearchError(error)) console.error(error.code, error.issues[0]?.index, error.issues[0]?.field);
}
