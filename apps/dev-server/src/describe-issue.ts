/** The first problem of a parse error: `path: message` of a zod issue, else the error's message. */
export function describeIssue(error: unknown): string {
  const issue = (error as { issues?: { path: PropertyKey[]; message: string }[] }).issues?.[0];
  if (issue) return `${issue.path.map(String).join(".") || "(root)"}: ${issue.message}`;
  return error instanceof Error ? error.message : String(error);
}
