/** Where one text was written in a `ByteArena`: give it back with `release` once nobody reads it. */
export interface ArenaSlice {
  readonly chunk: ArenaChunk;
  readonly offset: number;
  /** Its UTF-8 bytes. */
  readonly length: number;
}

/** One buffer of the arena; its memory is freed once its texts are all released and it is full. */
export interface ArenaChunk {
  readonly buffer: Buffer;
  /** Bytes written so far. */
  used: number;
  /** Texts written in it and not released yet. */
  live: number;
}

/** Chunks of this size (a text larger than half of one gets a buffer of its own). */
const CHUNK_BYTES = 256 * 1024;

/**
 * Texts kept as UTF-8 outside V8's heap, in large buffers written one after another. What is
 * kept for long (the dev UI's finished traces) then costs the collector nothing: it never
 * copies or marks the bytes, and every text kept in the heap would have been copied by young
 * collections and counted towards growing V8's young generation. A chunk's memory goes back
 * once every text in it is released and no more fit: with texts released in the order they
 * were written (the trace store evicts the oldest first), chunks are freed in order too.
 */
export class ByteArena {
  private current: ArenaChunk | undefined;
  private bytes = 0;

  /** Bytes held in live chunks (written or not), for tests and stats. */
  get retainedBytes(): number {
    return this.bytes;
  }

  write(text: string): ArenaSlice {
    const length = Buffer.byteLength(text, "utf8");
    if (length > CHUNK_BYTES / 2) {
      const chunk: ArenaChunk = { buffer: Buffer.allocUnsafeSlow(length), used: length, live: 1 };
      chunk.buffer.write(text, 0, length, "utf8");
      this.bytes += length;
      return { chunk, offset: 0, length };
    }
    let chunk = this.current;
    if (!chunk || chunk.used + length > chunk.buffer.length) {
      if (chunk) this.retire(chunk);
      chunk = { buffer: Buffer.allocUnsafeSlow(CHUNK_BYTES), used: 0, live: 0 };
      this.bytes += CHUNK_BYTES;
      this.current = chunk;
    }
    const offset = chunk.used;
    chunk.buffer.write(text, offset, length, "utf8");
    chunk.used += length;
    chunk.live += 1;
    return { chunk, offset, length };
  }

  read(slice: ArenaSlice): string {
    return slice.chunk.buffer.toString("utf8", slice.offset, slice.offset + slice.length);
  }

  release(slice: ArenaSlice): void {
    const chunk = slice.chunk;
    chunk.live -= 1;
    if (chunk.live === 0 && chunk !== this.current) this.bytes -= chunk.buffer.length;
  }

  /** Forgets every chunk (their texts must not be read again). */
  clear(): void {
    this.current = undefined;
    this.bytes = 0;
  }

  /** The current chunk is full: once it holds no live text, nothing refers to it any more. */
  private retire(chunk: ArenaChunk): void {
    this.current = undefined;
    if (chunk.live === 0) this.bytes -= chunk.buffer.length;
  }
}
