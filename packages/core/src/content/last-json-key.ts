/**
 * `JSON.stringify(parts)` for a short list of strings (a map key made of ids), remembering the
 * last list and its key: a run asks for the same session's keys at every append and request,
 * and handing back the same string also reuses the hash the maps computed for it.
 */
export class LastJsonKey {
  private parts: readonly string[] = [];
  private key = "";

  of(parts: readonly string[]): string {
    const last = this.parts;
    if (parts.length === last.length) {
      let same = true;
      for (let i = 0; i < parts.length && same; i++) same = parts[i] === last[i];
      if (same && last.length > 0) return this.key;
    }
    this.parts = parts;
    this.key = JSON.stringify(parts);
    return this.key;
  }
}
