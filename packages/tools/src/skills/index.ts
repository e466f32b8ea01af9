// @agentkit/tools/skills: Agent Skills (ADK's skill folders) as a toolset.
export { SkillToolset, activeSkillsKey, type SkillToolsetOptions } from "./skill-toolset.js";
export { parseSkillMd, loadSkillFromDir, loadSkillsFromDir } from "./skill-loader.js";
export { formatSkillsAsXml } from "./skill-prompt.js";
export {
  SKILL_NAME_PATTERN,
  skillFrontmatterSchema,
  type Skill,
  type SkillFrontmatter,
  type SkillResources,
  type SkillScript,
} from "./skill.js";
export { skillToolsetFromConfig } from "./skill-toolset-from-config.js";
