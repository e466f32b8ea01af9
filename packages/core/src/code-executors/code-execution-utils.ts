import type { Content, Part } from "../content/content.js";
import type { CodeExecutionFile, CodeExecutorResult, Delimiters } from "./base-code-executor.js";

/**
 * Finds the first code to run in a model content and truncates the content after it, in
 * place: an `executableCode` part wins; otherwise the first fenced block (any of `delimiters`)
 * in the joined text parts, which become the text before the block plus an `executableCode`
 * part. Returns the code, or `undefined` (content untouched) when there is none.
 */
export function extractCodeAndTruncateContent(content: Content, delimiters: readonly Delimiters[]): string | undefined {
  const parts = content.parts ?? [];
  const codeIndex = parts.findIndex((p) => p.executableCode?.code !== undefined && !p.thought);
  if (codeIndex >= 0) {
    content.parts = parts.slice(0, codeIndex + 1);
    return parts[codeIndex]!.executableCode!.code!;
  }
  const textParts = parts.filter((p) => typeof p.text === "string" && !p.thought);
  if (textParts.length === 0 || delimiters.length === 0) return undefined;
  const text = textParts.map((p) => p.text).join("");
  let best: { start: number; end: number; code: string; open: string } | undefined;
  for (const [open, close] of delimiters) {
    const start = text.indexOf(open);
    if (start < 0 || (best && start >= best.start)) continue;
    const codeStart = start + open.length;
    const end = text.indexOf(close, codeStart);
    if (end < 0) continue;
    best = { start, end: end + close.length, code: text.slice(codeStart, end), open };
  }
  if (!best || best.code.trim() === "") return undefined;
  const prefix = text.slice(0, best.start);
  const newParts: Part[] = [];
  if (prefix.trim() !== "") newParts.push({ text: prefix });
  // Gemini's enum knows only PYTHON; other languages stay unspecified.
  const language = /python|tool_code/i.test(best.open) ? "PYTHON" : "LANGUAGE_UNSPECIFIED";
  newParts.push({ executableCode: { code: best.code, language } });
  content.parts = newParts;
  return best.code;
}

/** The `codeExecutionResult` part for an execution (failed when stderr is not empty). */
export function buildCodeExecutionResultPart(
  result: CodeExecutorResult,
  savedFiles: string[] = result.outputFiles.map((f) => f.name),
): Part {
  if (result.stderr) {
    return { codeExecutionResult: { outcome: "OUTCOME_FAILED", output: result.stderr } };
  }
  const sections: string[] = [];
  if (result.stdout || result.outputFiles.length === 0) sections.push(`Code execution result:\n${result.stdout}\n`);
  if (savedFiles.length > 0) sections.push(`Saved artifacts:\n${savedFiles.map((n) => `\`${n}\``).join(",")}`);
  return { codeExecutionResult: { outcome: "OUTCOME_OK", output: sections.join("\n\n") } };
}

/**
 * Shows code execution to a model as text: a trailing `executableCode` part becomes a fenced
 * block, and a content that is only a `codeExecutionResult` becomes a user text fenced with the
 * result delimiters (a model content that mixes parts is left alone). Returns a new content when
 * something changed, else the same one: request contents are shared snapshots, never edited.
 */
export function convertCodeExecutionParts(
  content: Content,
  codeDelimiters: Delimiters,
  resultDelimiters: Delimiters,
): Content {
  const parts = content.parts;
  if (!parts || parts.length === 0) return content;
  const last = parts[parts.length - 1]!;
  if (last.executableCode) {
    const text = `${codeDelimiters[0]}${last.executableCode.code ?? ""}${codeDelimiters[1]}`;
    return { ...content, parts: [...parts.slice(0, -1), { text }] };
  }
  if (parts.length === 1 && last.codeExecutionResult) {
    const text = `${resultDelimiters[0]}${last.codeExecutionResult.output ?? ""}${resultDelimiters[1]}`;
    return { ...content, role: "user", parts: [{ text }] };
  }
  return content;
}

const EXTENSIONS: Record<string, string> = {
  "text/csv": "csv",
  "text/plain": "txt",
  "application/json": "json",
  "text/tab-separated-values": "tsv",
  "image/png": "png",
  "image/jpeg": "jpg",
  "application/pdf": "pdf",
};

/**
 * The inline files of user contents, as executor input files: named by their `displayName`
 * when safe, else `data_<content>_<part>.<ext>`. With `replace`, each content holding inline
 * parts is replaced in the array by a copy whose inline parts are placeholder texts naming the
 * files (ADK's data-file optimisation); the contents themselves are never edited.
 */
export function extractInputFiles(contents: Content[], replace: boolean): CodeExecutionFile[] {
  const files: CodeExecutionFile[] = [];
  const used = new Set<string>();
  contents.forEach((content, i) => {
    if (content.role !== "user" || !content.parts) return;
    content.parts.forEach((part, j) => {
      const blob = part.inlineData;
      if (!blob?.data) return;
      const mimeType = blob.mimeType ?? "application/octet-stream";
      let name = safeName(blob.displayName) ?? `data_${i + 1}_${j + 1}.${EXTENSIONS[mimeType] ?? "bin"}`;
      if (used.has(name)) name = `${i + 1}_${j + 1}_${name}`;
      used.add(name);
      files.push({ name, content: blob.data, mimeType });
      if (!replace) return;
      const parts = [...contents[i]!.parts!];
      parts[j] = { text: placeholder(name, mimeType, blob.data) };
      contents[i] = { ...contents[i]!, parts };
    });
  });
  return files;
}

/** The text that stands for a data file: its name, and for text files a preview of the first lines. */
function placeholder(name: string, mimeType: string, data: string): string {
  if (!/^text\/|^application\/json/.test(mimeType)) return `\nAvailable file: \`${name}\`\n`;
  const head = Buffer.from(data.slice(0, 4096), "base64").toString("utf8");
  const lines = head
    .split(/\r?\n/)
    .slice(0, PREVIEW_LINES)
    .map((l) => l.slice(0, 200));
  return `\nAvailable file: \`${name}\` (first lines):\n${lines.join("\n")}\n`;
}

const PREVIEW_LINES = 5;

function safeName(name: string | undefined): string | undefined {
  if (!name) return undefined;
  const base = name.split(/[\\/]/).pop() ?? "";
  return /^[\w][\w.\- ]{0,200}$/.test(base) ? base : undefined;
}
