#!/usr/bin/env node
// Prints violations of the dependency rule (see lib/dependency-rule.mjs); exit 1 if any.
import { join } from "node:path";
import { checkDependencyRule } from "./lib/dependency-rule.mjs";

const violations = checkDependencyRule(join(import.meta.dirname, ".."));
for (const v of violations) console.error(v);
console.log(violations.length === 0 ? "dependency rule: ok" : `dependency rule: ${violations.length} violation(s)`);
process.exit(violations.length === 0 ? 0 : 1);
