import { afterEach, describe, expect, it } from "@jest/globals";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// The script's decisions, with fake dpkg / apt-get / sudo / id on a PATH that holds nothing else
// (plus the real sed, env and true), so no package is ever installed or removed.
const script = join(import.meta.dirname, "..", "ensure-system-packages.sh");
const ALL = ["postgresql", "chromium", "procps", "iproute2", "python3"];
const temps: string[] = [];

afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

interface Machine {
  installed?: string[];
  /** Removed packages whose configuration files remain (`dpkg -s` succeeds for them). */
  configOnly?: string[];
  uid?: number;
  sudo?: "none" | "passwordless" | "password";
  aptFails?: boolean;
  noDpkg?: boolean;
  env?: Record<string, string>;
}

function fake(bin: string, name: string, body: string): void {
  writeFileSync(join(bin, name), `#!/bin/bash\n${body}\n`);
  chmodSync(join(bin, name), 0o755);
}

function run(machine: Machine) {
  const dir = mkdtempSync(join(tmpdir(), "ensure-pkgs-"));
  temps.push(dir);
  const bin = join(dir, "bin");
  const log = join(dir, "calls.log");
  mkdirSync(bin);
  for (const tool of ["sed", "env", "true"]) symlinkSync(realTool(tool), join(bin, tool));
  if (!machine.noDpkg)
    fake(
      bin,
      "dpkg",
      `[ "$1" = "-s" ] || exit 2
for p in $FAKE_INSTALLED; do [ "$p" = "$2" ] && { printf 'Package: %s\\nStatus: install ok installed\\n' "$2"; exit 0; }; done
for p in $FAKE_CONFIG_ONLY; do [ "$p" = "$2" ] && { printf 'Package: %s\\nStatus: deinstall ok config-files\\n' "$2"; exit 0; }; done
echo "dpkg-query: package '$2' is not installed" >&2; exit 1`,
    );
  fake(
    bin,
    "apt-get",
    `echo "apt-get $* DEBIAN_FRONTEND=\${DEBIAN_FRONTEND:-}" >> "$FAKE_LOG"; exit \${FAKE_APT_EXIT:-0}`,
  );
  fake(bin, "id", `[ "$1" = "-u" ] && echo "$FAKE_UID"`);
  if (machine.sudo && machine.sudo !== "none")
    fake(
      bin,
      "sudo",
      `echo "sudo $*" >> "$FAKE_LOG"
[ "$1" = "-n" ] || exit 1
[ "$FAKE_SUDO" = "password" ] && { echo "sudo: a password is required" >&2; exit 1; }
shift; exec "$@"`,
    );
  const result = spawnSync("/bin/bash", [script], {
    encoding: "utf8",
    env: {
      PATH: bin,
      FAKE_LOG: log,
      FAKE_INSTALLED: (machine.installed ?? []).join(" "),
      FAKE_CONFIG_ONLY: (machine.configOnly ?? []).join(" "),
      FAKE_UID: String(machine.uid ?? 1000),
      FAKE_SUDO: machine.sudo ?? "none",
      FAKE_APT_EXIT: machine.aptFails ? "100" : "0",
      ...machine.env,
    },
  });
  const calls = existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [];
  return { status: result.status, stderr: result.stderr, stdout: result.stdout, calls };
}

function realTool(name: string): string {
  for (const dir of ["/usr/bin", "/bin"]) if (existsSync(join(dir, name))) return join(dir, name);
  throw new Error(`${name} not found`);
}

describe("scripts/ensure-system-packages.sh", () => {
  it("does nothing when every package is installed", () => {
    const r = run({ installed: ALL });
    expect(r).toMatchObject({ status: 0, stderr: "", stdout: "", calls: [] });
  });

  it("installs the missing packages with apt-get as root", () => {
    const r = run({ installed: ["procps", "iproute2", "python3"], uid: 0 });
    expect(r.status).toBe(0);
    expect(r.calls).toEqual([
      "apt-get update -qq DEBIAN_FRONTEND=",
      "apt-get install -y -qq postgresql chromium DEBIAN_FRONTEND=noninteractive",
    ]);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("installing postgresql chromium with apt-get");
  });

  it("counts a removed package whose configuration files remain as missing", () => {
    const r = run({ installed: ALL.filter((p) => p !== "chromium"), configOnly: ["chromium"], uid: 0 });
    expect(r.status).toBe(0);
    expect(r.calls).toContain("apt-get install -y -qq chromium DEBIAN_FRONTEND=noninteractive");
  });

  it("installs through sudo -n when it needs no password", () => {
    const r = run({ installed: ALL.filter((p) => p !== "postgresql"), sudo: "passwordless" });
    expect(r.status).toBe(0);
    expect(r.calls).toEqual([
      "sudo -n true",
      "sudo -n apt-get update -qq",
      "apt-get update -qq DEBIAN_FRONTEND=",
      "sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql",
      "apt-get install -y -qq postgresql DEBIAN_FRONTEND=noninteractive",
    ]);
  });

  it.each([
    ["sudo asks for a password", "password" as const],
    ["there is no sudo", "none" as const],
  ])("stops with the one command to run when not root and %s", (_, sudo) => {
    const r = run({ installed: ["procps", "iproute2", "python3"], sudo });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split("\n")).toEqual([
      "ensure-system-packages: missing Debian packages: postgresql chromium. Install them with: sudo apt-get install -y postgresql chromium",
    ]);
    expect(r.calls.filter((c) => c.startsWith("apt-get"))).toEqual([]);
  });

  it("fails when apt-get fails", () => {
    const r = run({ installed: [], uid: 0, aptFails: true });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`apt-get could not install ${ALL.join(" ")}`);
  });

  it("stops on a system without dpkg unless told to skip the check", () => {
    const r = run({ noDpkg: true, uid: 0 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("no dpkg: not a Debian system");
    expect(r.calls).toEqual([]);
    expect(run({ noDpkg: true, env: { AGENTKIT_SKIP_SYSTEM_PACKAGES: "1" } })).toMatchObject({ status: 0, calls: [] });
  });
});
