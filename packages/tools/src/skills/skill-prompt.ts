import type { Skill, SkillFrontmatter } from "./skill.js";

const escapeXml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** The `<available_skills>` block the model reads (names and descriptions only), as ADK formats it. */
export function formatSkillsAsXml(skills: readonly (Skill | SkillFrontmatter)[]): string {
  const lines = ["<available_skills>"];
  for (const item of skills) {
    const frontmatter = "frontmatter" in item ? item.frontmatter : item;
    lines.push("  <skill>", `    <name>${escapeXml(frontmatter.name)}</name>`);
    lines.push(`    <description>${escapeXml(frontmatter.description)}</description>`, "  </skill>");
  }
  lines.push("</available_skills>");
  return lines.join("\n");
}
