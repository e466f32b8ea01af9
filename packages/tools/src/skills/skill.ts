import { z } from "zod";

/** Skill names: lower-case words joined by `-` or `_` (the Agent Skills format, as ADK checks it). */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;

/** The YAML frontmatter of a `SKILL.md` (unknown keys are kept). */
export const skillFrontmatterSchema = z.looseObject({
  name: z.string().regex(SKILL_NAME_PATTERN, "use lower-case letters, digits and - or _ (e.g. pdf-forms)").max(64),
  description: z.string().min(1).max(1024),
  license: z.string().optional(),
  compatibility: z.string().max(500).optional(),
  "allowed-tools": z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).default({}),
});

/** A skill's metadata (ADK's `Frontmatter`): what the model sees before it loads the skill. */
export interface SkillFrontmatter {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  allowedTools?: string;
  metadata?: Record<string, unknown>;
}

/** A script of a skill (its source; it only ever runs in a code executor). */
export interface SkillScript {
  src: string;
}

/** A skill's files besides SKILL.md, by path relative to their folder (`references/`, `assets/`, `scripts/`). */
export interface SkillResources {
  references?: Record<string, string | Buffer>;
  assets?: Record<string, string | Buffer>;
  scripts?: Record<string, SkillScript>;
}

/** A skill (ADK's `Skill`): frontmatter, the instructions of SKILL.md's body, and its resources. */
export interface Skill {
  frontmatter: SkillFrontmatter;
  instructions: string;
  resources?: SkillResources;
}
