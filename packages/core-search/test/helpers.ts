import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { mulberry32 } from '../src/eval/random.js';
import { type ToolDefinition, ToolSearch, ToolSearchError, type ToolSearchOptions } from '../src/index.js';

/** The ToolSearchError `fn` throws (fails the test if it throws anything else or nothing). */
export function caught(fn: () => unknown): ToolSearchError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolSearchError);
    return error as ToolSearchError;
  }
  throw new Error('expected a ToolSearchError');
}

/** A small registry with one clear answer per strategy under test. */
export const TOOLS: ToolDefinition[] = [
  {
    name: 'browser__take_screenshot',
    description: 'Capture an image of the current page in the browser window.',
    inputSchema: { type: 'object', properties: { fullPage: { type: 'boolean', description: 'Whole page' } } },
  },
  { name: 'browser__navigate', description: 'Open a URL in the browser and wait for the page to load.' },
  { name: 'browser__click', description: 'Click an element on the web page by its selector.' },
  { name: 'github__create_issue', description: 'Open a new issue in a repository to report a problem.' },
  { name: 'github__list_pull_requests', description: 'List pull requests of a repository.' },
  { name: 'github__get_file_contents', description: 'Read a file from a repository at a given ref.' },
  { name: 'calendar__create_event', description: 'Add an event to the calendar with a title and time.' },
  { name: 'calendar__list_events', description: 'List upcoming calendar events between two dates.' },
  {
    name: 'mail__send_email',
    description: 'Send an email message to one or more recipients.',
    inputSchema: { type: 'object', properties: { to: { type: 'string' }, subject: { type: 'string' } } },
  },
  { name: 'files__verify_checksum', description: 'Verify the checksum of a downloaded archive.' },
  { name: 'db__run_query', description: 'Run a SQL statement against the Postgres database.' },
  {
    name: 'weather__forecast',
    description: 'Weather forecast for a city for the coming days.',
    tags: ['climate'],
  },
];

export function engine(options: ToolSearchOptions = {}): ToolSearch {
  return new ToolSearch({ tools: TOOLS, embedding: false, ...options });
}

export async function top(search: ToolSearch, query: string, options = {}): Promise<string[]> {
  const response = await search.search(query, { limit: 5, ...options });
  return response.results.map((result) => result.name);
}

/** Deterministic pseudo-random numbers in [0, 1): test data without fixtures. */
export const random = mulberry32;

/** The bundled registry's tools (fixtures/registry/tools.json). */
export const REGISTRY_TOOLS = (
  JSON.parse(readFileSync(new URL('../../../fixtures/registry/tools.json', import.meta.url), 'utf8')) as {
    tools: ToolDefinition[];
  }
).tools;
