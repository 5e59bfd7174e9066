/**
 * A saved index on disk (toBytes() written to a file), read in parts: ToolSearch.load reads
 * the sections a search needs at once and each tool's text only when it is first shown.
 *
 * Why: at ~100k tools the file is ~148 MB, of which the tools' JSON texts are 70 MB, and
 * reading all of it was the largest part of a gateway's start from its index cache (readFileSync
 * ~0.3 s of ~1.2 s CPU, `--cpu-prof` of the warm start, load ~4). A search shows ten tools.
 *
 * The file stays open while the engine's documents may read it (an entry of the cache is
 * replaced by a rename, so the open file keeps its bytes whatever happens to the path); the
 * engine has no close(), so the descriptor is closed when the file object is collected, or
 * by close() when a load fails.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const open = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
});

export class SavedFile {
  readonly size: number;
  private fd: number | undefined;

  private constructor(fd: number) {
    this.fd = fd;
    this.size = fstatSync(fd).size;
    open.register(this, fd, this);
  }

  /** Opens `path`; throws the file system's error when it cannot be read. */
  static open(path: string): SavedFile {
    const fd = openSync(path, 'r');
    try {
      return new SavedFile(fd);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /**
   * `length` bytes from `offset`, in a buffer of their own (at offset 0 of it: typed views of
   * any width fit). Fewer than asked (the file ends, or was cut while open) is a RangeError.
   */
  read(offset: number, length: number): Uint8Array {
    if (this.fd === undefined) throw new RangeError('toolsearch: the saved index file is closed');
    // Not zero-filled: every byte is read into it (the head of a ~100k-tool index is ~75 MB).
    const buffer = Buffer.allocUnsafeSlow(length);
    const out = new Uint8Array(buffer.buffer, buffer.byteOffset, length);
    let done = 0;
    while (done < length) {
      const got = readSync(this.fd, out, done, length - done, offset + done);
      if (got === 0)
        throw new RangeError(
          `toolsearch: the saved index file ends at byte ${offset + done}, not ${offset + length}`,
        );
      done += got;
    }
    return out;
  }

  close(): void {
    if (this.fd === undefined) return;
    open.unregister(this);
    closeSync(this.fd);
    this.fd = undefined;
  }
}
