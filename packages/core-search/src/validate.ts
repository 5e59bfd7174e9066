import { ToolSearchError, type ToolSearchIssue } from './errors.js';
import type { ToolDefinition } from './types.js';

/** Check one tool's shape; every problem is reported with its index and field. */
function toolIssues(tool: unknown, index: number): ToolSearchIssue[] {
  if (tool === null || typeof tool !== 'object' || Array.isArray(tool)) {
    return [{ index, message: 'a tool must be an object' }];
  }
  const t = tool as Record<string, unknown>;
  const name = typeof t.name === 'string' ? t.name : undefined;
  const issues: ToolSearchIssue[] = [];
  const issue = (field: string, message: string) => issues.push({ index, name, field, message });
  if (typeof t.name !== 'string') issue('name', 'name must be a string');
  else if (t.name.trim() === '') issue('name', 'name must not be empty');
  for (const field of ['title', 'description', 'toolset'] as const) {
    if (t[field] !== undefined && typeof t[field] !== 'string') issue(field, `${field} must be a string`);
  }
  if (t.category !== undefined && t.category !== null && typeof t.category !== 'string') {
    issue('category', 'category must be a string or null');
  }
  if (
    t.inputSchema !== undefined &&
    (t.inputSchema === null || typeof t.inputSchema !== 'object' || Array.isArray(t.inputSchema))
  ) {
    issue('inputSchema', 'inputSchema must be an object');
  }
  if (t.annotations !== undefined && (t.annotations === null || typeof t.annotations !== 'object')) {
    issue('annotations', 'annotations must be an object');
  }
  for (const field of ['tags', 'examples'] as const) {
    const value = t[field];
    if (value === undefined) continue;
    if (!Array.isArray(value)) issue(field, `${field} must be an array of strings`);
    else
      value.forEach((item, i) => {
        if (typeof item !== 'string') issue(`${field}[${i}]`, `${field} must contain only strings`);
      });
  }
  return issues;
}

/**
 * Validate a batch before anything is indexed, so add() is all-or-nothing. Malformed
 * tools throw INVALID_TOOL; names used twice (in the batch, or already indexed) throw
 * DUPLICATE_TOOL naming both places. Every issue is listed, not just the first.
 */
export function validateTools(tools: unknown, existing: (name: string) => boolean): ToolDefinition[] {
  if (!Array.isArray(tools)) {
    throw new ToolSearchError('INVALID_TOOL', 'toolsearch: tools must be an array of tool definitions');
  }
  const issues = tools.flatMap((tool, index) => toolIssues(tool, index));
  if (issues.length > 0) {
    const first = issues[0]!;
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue(s))` : '';
    throw new ToolSearchError(
      'INVALID_TOOL',
      `toolsearch: invalid tool at index ${first.index}, field "${first.field ?? '(tool)'}": ${first.message}${more}`,
      issues,
    );
  }
  const valid = tools as ToolDefinition[];
  const duplicates: ToolSearchIssue[] = [];
  const seen = new Map<string, number>();
  valid.forEach((tool, index) => {
    const earlier = seen.get(tool.name);
    if (earlier !== undefined) {
      duplicates.push({
        index,
        name: tool.name,
        field: 'name',
        message: `same name as the tool at index ${earlier}`,
      });
    } else if (existing(tool.name)) {
      duplicates.push({
        index,
        name: tool.name,
        field: 'name',
        message: 'a tool with this name is already indexed',
      });
    }
    seen.set(tool.name, earlier ?? index);
  });
  if (duplicates.length > 0) {
    const list = duplicates.map((d) => `"${d.name}" at index ${d.index} (${d.message})`).join('; ');
    throw new ToolSearchError('DUPLICATE_TOOL', `toolsearch: duplicate tool names: ${list}`, duplicates);
  }
  return valid;
}
