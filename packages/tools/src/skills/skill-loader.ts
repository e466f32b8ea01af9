import { lstat, readdir, readFile, realpath } from "node:fs/promises";
import { basename, join, relative, sep } from "node:path";
import { ConfigurationError } from "@agentkit/core";
import { parse as parseYaml } from "yaml";
import { skillFrontmatterSchema, type Skill, type SkillFrontmatter, type SkillResources } from "./skill.js";

const SKILL_FILE = "SKILL.md";
const RESOURCE_DIRS = ["references", "assets", "scripts"] as const;
/** Limits that keep a skill folder from flooding memory or the prompt. */
const MAX_FILE_BYTES = 1024 * 1024;
const MAX_FILES = 200;

/**
 * Splits a SKILL.md into its YAML frontmatter (between `---` lines) and the markdown body, and
 * checks the frontmatter. Throws `ConfigurationError` naming what is wrong.
 */
export function parseSkillMd(content: string, where = SKILL_FILE): { frontmatter: SkillFrontmatter; body: string } {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(content);
  if (!match) throw new ConfigurationError(`${where} must start with YAML frontmatter between --- lines.`);
  let raw: unknown;
  try {
    raw = parseYaml(match[1]!);
  } catch (error) {
    throw new ConfigurationError(`${where}: the frontmatter is not valid YAML: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const parsed = skillFrontmatterSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "frontmatter"}: ${i.message}`).join("; ");
    throw new ConfigurationError(`${where}: invalid frontmatter (${detail}).`);
  }
  const { "allowed-tools": allowedTools, ...rest } = parsed.data;
  const frontmatter: SkillFrontmatter = { ...rest, ...(allowedTools !== undefined ? { allowedTools } : {}) };
  return { frontmatter, body: match[2]!.trim() };
}

/**
 * Loads one skill folder: SKILL.md (its `name` must be the folder's name) and the files under
 * `references/`, `assets/` and `scripts/`. Symbolic links and files outside the folder are
 * refused, so a skill cannot make the agent read arbitrary files.
 */
export async function loadSkillFromDir(dir: string): Promise<Skill> {
  const root = await realpath(dir).catch((error: unknown) => {
    throw new ConfigurationError(`Skill folder ${dir} does not exist.`, { cause: error });
  });
  const skillMd = join(root, SKILL_FILE);
  const content = await readFile(skillMd, "utf8").catch((error: unknown) => {
    throw new ConfigurationError(`Skill folder ${dir} has no ${SKILL_FILE}.`, { cause: error });
  });
  const { frontmatter, body } = parseSkillMd(content, skillMd);
  if (frontmatter.name !== basename(root)) {
    throw new ConfigurationError(
      `${skillMd}: the skill is named "${frontmatter.name}" but its folder is "${basename(root)}"; they must match.`,
    );
  }
  const resources: SkillResources = {};
  let count = 0;
  for (const kind of RESOURCE_DIRS) {
    const files = await listFiles(join(root, kind));
    for (const file of files) {
      if (++count > MAX_FILES)
        throw new ConfigurationError(`Skill ${frontmatter.name} has more than ${MAX_FILES} files.`);
      const info = await lstat(file);
      if (info.size > MAX_FILE_BYTES) {
        throw new ConfigurationError(`Skill ${frontmatter.name}: ${relative(root, file)} is larger than 1 MiB.`);
      }
      const name = relative(join(root, kind), file).split(sep).join("/");
      const bytes = await readFile(file);
      if (kind === "scripts") (resources.scripts ??= {})[name] = { src: bytes.toString("utf8") };
      else (resources[kind] ??= {})[name] = isText(bytes) ? bytes.toString("utf8") : bytes;
    }
  }
  return { frontmatter, instructions: body, ...(count > 0 ? { resources } : {}) };
}

/** Every skill in the sub-folders of `dir` that holds a SKILL.md, by name (discovery). */
export async function loadSkillsFromDir(dir: string): Promise<Record<string, Skill>> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: unknown) => {
    throw new ConfigurationError(`Skills folder ${dir} does not exist.`, { cause: error });
  });
  const skills: Record<string, Skill> = {};
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const hasSkill = await lstat(join(dir, entry.name, SKILL_FILE)).then(
      () => true,
      () => false,
    );
    if (!hasSkill) continue;
    const skill = await loadSkillFromDir(join(dir, entry.name));
    skills[skill.frontmatter.name] = skill;
  }
  return skills;
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink())
      throw new ConfigurationError(`Skill file ${path} is a symbolic link; copy the file instead.`);
    if (entry.isDirectory()) out.push(...(await listFiles(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out.sort();
}

function isText(bytes: Buffer): boolean {
  return !bytes.subarray(0, 8000).includes(0);
}
