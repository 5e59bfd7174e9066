/**
 * The engine's toolsets as small numbers: each name gets a number on first sight (kept
 * while the toolset is empty, so a toolset emptied and filled again keeps it), with its
 * count of indexed tools, and each indexed tool's toolset number by id. Toolset
 * suggestions sum the best fused hits by toolset once per search: by number they compare
 * integers and read an array, where by name each hit cost a string comparison per toolset
 * already seen and each suggestion a lookup in a Map of every toolset.
 */
export class ToolsetTable {
  private readonly numbers = new Map<string, number>();
  /** By toolset number: its name and its indexed tools. */
  private readonly names: string[] = [];
  private readonly sizes: number[] = [];
  /** By tool id: its toolset's number (-1: no tool). */
  private byId = new Int32Array(64).fill(-1);

  /** The toolset's number, given one if new. */
  numberOf(name: string): number {
    let number = this.numbers.get(name);
    if (number === undefined) {
      number = this.names.length;
      this.numbers.set(name, number);
      this.names.push(name);
      this.sizes.push(0);
    }
    return number;
  }

  /** Tool `id` is indexed in toolset `number` (from numberOf); its count is add()'s. */
  assign(id: number, number: number): void {
    if (id >= this.byId.length) {
      const grown = new Int32Array(Math.max(id + 1, this.byId.length * 2)).fill(-1);
      grown.set(this.byId);
      this.byId = grown;
    }
    this.byId[id] = number;
  }

  /** `count` more tools in toolset `number`. */
  add(number: number, count: number): void {
    this.sizes[number]! += count;
  }

  /** Tool `id` is no longer indexed. */
  remove(id: number): void {
    const number = this.byId[id] ?? -1;
    if (number < 0) return;
    this.byId[id] = -1;
    this.sizes[number]!--;
  }

  /** The toolset number of an indexed tool (-1 for an id not indexed). */
  of(id: number): number {
    return this.byId[id] ?? -1;
  }

  name(number: number): string {
    return this.names[number]!;
  }

  /** Tools indexed in toolset `number`. */
  size(number: number): number {
    return this.sizes[number]!;
  }

  /** Does some indexed tool belong to this toolset? */
  has(name: string): boolean {
    const number = this.numbers.get(name);
    return number !== undefined && this.sizes[number]! > 0;
  }

  /** Tools per toolset, of the toolsets with indexed tools, in number order. */
  counts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (let number = 0; number < this.names.length; number++)
      if (this.sizes[number]! > 0) counts.set(this.names[number]!, this.sizes[number]!);
    return counts;
  }

  /** The names of the toolsets with indexed tools. */
  known(): string[] {
    return [...this.counts().keys()];
  }
}
