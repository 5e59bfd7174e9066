/**
 * Token counts (cl100k_base, the GPT-4 tokenizer, via js-tiktoken) used to keep
 * the meta-tools small and to report what lazy loading saves. Counts are an
 * estimate for other models' tokenizers, but a stable, comparable one.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';

let encoder: Tiktoken | undefined;

function getEncoder(): Tiktoken {
  // Built on first use: the rank table takes ~100 ms to load.
  encoder ??= new Tiktoken(cl100k);
  return encoder;
}

/** Tokens of a string as-is, or of any other value as its JSON. `undefined` counts 0. */
export function countTokens(value: unknown): number {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined || text === '') return 0;
  return getEncoder().encode(text).length;
}

/** Tokens of a `tools/list` result holding these tools, i.e. what a client puts in context. */
export function countToolListTokens(tools: readonly unknown[]): number {
  return countTokens({ tools });
}
