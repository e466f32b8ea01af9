import { isAbsolute, resolve } from "node:path";
import { ConfigurationError } from "@agentkit/core";
import { z } from "zod";
import { SkillToolset } from "./skill-toolset.js";

const argsSchema = z.strictObject({
  /** A folder whose sub-folders are skills (discovery). */
  skills_dir: z.string().min(1).optional(),
  /** Skill folders, each with a SKILL.md. */
  skills: z.array(z.string().min(1)).optional(),
});

/**
 * `SkillToolset` from a YAML agent config: `tools: [{ name: SkillToolset, args: { skills_dir:
 * ./skills } }]` or `args: { skills: [./skills/pdf-forms, ./skills/sql] }`. Relative paths
 * resolve against the folder of the YAML file. Scripts run in the agent's `code_executor`.
 */
export async function skillToolsetFromConfig(
  args: Record<string, unknown> | undefined,
  options: { baseDir: string },
): Promise<SkillToolset> {
  const parsed = argsSchema.safeParse(args ?? {});
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "args"}: ${i.message}`).join("; ");
    throw new ConfigurationError(`SkillToolset args: ${detail}. Use { skills_dir } or { skills: [folders] }.`);
  }
  const { skills_dir: dir, skills } = parsed.data;
  if (!dir && !skills?.length) throw new ConfigurationError("SkillToolset args need skills_dir or skills.");
  const at = (p: string) => (isAbsolute(p) ? p : resolve(options.baseDir, p));
  const fromDir = dir ? (await SkillToolset.fromDir(at(dir))).skills : {};
  const listed = skills?.length ? (await SkillToolset.fromSkillDirs(skills.map(at))).skills : {};
  return new SkillToolset([...Object.values(fromDir), ...Object.values(listed)]);
}
