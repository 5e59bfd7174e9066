/**
 * A fixed set of realistic queries for latency only (never scored). They mix
 * the three query shapes the engine distinguishes, because each shape runs a
 * different set of strategies and so costs a different amount:
 * natural-language requests, keyword bundles, and identifiers.
 */
export const SCALE_QUERIES: readonly string[] = [
  // natural language
  'take a screenshot of the current web page',
  'create a new issue in my github repository about the login bug',
  'send a message to the team channel on slack',
  'what is the weather going to be like in Paris tomorrow',
  'read the contents of a file and show me the first lines',
  'search the web for recent news about electric cars',
  'list all open pull requests that are waiting for my review',
  'run a SQL query against the postgres database',
  'schedule a meeting with Anna next Tuesday at 3pm',
  'convert this markdown document to a PDF',
  'find the cheapest flight from Berlin to Lisbon in March',
  'get the current stock price of Apple',
  'summarize the last ten emails in my inbox',
  'click the submit button on the form',
  // keywords
  'git commit',
  'delete file',
  'database schema',
  'memory graph entities',
  'browser navigate url',
  'weather forecast',
  'upload image',
  'kubernetes pods logs',
  'translate text',
  // identifiers
  'browser_take_screenshot',
  'createIssue',
  'list_directory',
  'get_file_contents',
  'search_repositories',
  'sendMessage',
  'execute_sql',
];
