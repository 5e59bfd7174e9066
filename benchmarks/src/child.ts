/**
 * One measurement in a fresh Node process: the benchmark module runs itself again with
 * `--child ...args`, runs the measurement, and prints its result as JSON on stdout (and
 * nothing else there: logs go to stderr, which the child inherits).
 *
 * Why a child: a process's heap and compiled code carry over from one measurement to the
 * next. compare.ts's ~100k points need the peak RSS of the index alone; gateway-start.ts's
 * warm start measured in the process that had just indexed ~100k tools paid for collecting
 * that start's garbage (CPU 1.19-1.40 s against 0.79-0.82 s in a fresh process, load 10-16),
 * and a real gateway starts in a process of its own.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { REPO } from './paths.js';

export function runInChild<T>(
  moduleUrl: string,
  args: readonly string[],
  what: string,
  nodeFlags: readonly string[] = [],
): Promise<T> {
  return new Promise((done, fail) => {
    const proc = spawn(
      process.execPath,
      [
        ...nodeFlags,
        '--conditions=toolsearch-source',
        '--import',
        'tsx',
        fileURLToPath(moduleUrl),
        '--child',
        ...args,
      ],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    proc.on('error', fail);
    proc.on('exit', (code) => {
      if (code !== 0) fail(new Error(`${what}: the child process exited with code ${code}`));
      else {
        try {
          done(JSON.parse(out) as T);
        } catch (error) {
          fail(new Error(`${what}: the child printed no JSON result (${(error as Error).message})`));
        }
      }
    });
  });
}
