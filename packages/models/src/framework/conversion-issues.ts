import { MessageConversionError, type ConversionIssue } from "./message-conversion-error.js";

/**
 * Collects what a conversion had to leave out, per the `validation` adapter property:
 * disabled → unconvertible parts are dropped (and listed in the observability record);
 * enabled + failFast → the first one throws `MessageConversionError`;
 * enabled without failFast → the whole request is checked, then one error lists them all.
 */
export class ConversionIssues {
  readonly list: ConversionIssue[] = [];

  constructor(
    private readonly adapter: string,
    private readonly validation: { enabled: boolean; failFast: boolean },
  ) {}

  report(where: string, problem: string): void {
    const issue = { where, problem };
    this.list.push(issue);
    if (this.validation.enabled && this.validation.failFast) {
      throw new MessageConversionError(`${this.adapter} cannot convert ${where}: ${problem}.`, { issues: [issue] });
    }
  }

  /** Throws the collected issues when validation is enabled (called once conversion is done). */
  settle(): void {
    if (!this.validation.enabled || this.list.length === 0) return;
    const detail = this.list.map((i) => `${i.where}: ${i.problem}`).join("; ");
    throw new MessageConversionError(`${this.adapter} cannot convert the request: ${detail}.`, {
      issues: [...this.list],
    });
  }
}

/** Names the kind of a Gemini-shaped part, for messages. */
export function partKind(part: object): string {
  const keys = Object.entries(part)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k);
  return keys.length === 0 ? "empty part" : keys.join("+");
}
