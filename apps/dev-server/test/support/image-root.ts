// The production image rebuilt without a container engine, from the Dockerfile's own
// instructions: the build stage runs with the machine's pnpm in a copy of the repository's
// tracked files; the runtime stage is laid out in a directory that becomes the root of a
// private mount namespace (`unshare --mount` + `chroot`), so absolute paths (/app, /agents)
// are the image's and the process sees no file of the repository or of this machine beyond
// the system libraries node links against. Needs Linux and root; elsewhere it fails, saying so.
import { spawn, type ChildProcess } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { basename, dirname, join, posix, relative } from "node:path";
import { copyArgs, envPairs, execForm, type DockerStage } from "./dockerfile-stages.js";

/** The users of the node:*-slim base images (uid/gid); a USER naming another fails clearly. */
const BASE_IMAGE_USERS: Readonly<Record<string, number>> = { root: 0, node: 1000 };
/** Docker's default PATH in the node base images. */
const IMAGE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/** Host directories mounted read-only into the root: the shell, coreutils/find and node's shared libraries. */
const SYSTEM_DIRS = ["usr/bin", "usr/sbin", "usr/lib", "usr/lib64"];
/** The one non-pnpm build command run on this machine (in the copy): `find . … -exec rm -rf {} +`. */
const PRUNE_COMMAND = /^find \.(?: [^;&|`$<>/]+)? -exec rm -rf \{\} \+$/;

export interface RuntimeImage {
  /** The directory standing for the image's `/`. */
  root: string;
  /** ENV of the runtime stage, in order. */
  env: Record<string, string>;
  /** WORKDIR of the runtime stage (an image path). */
  workdir: string;
  /** USER of the runtime stage, as uid. */
  uid: number;
  entrypoint: string[];
  exposed: string[];
  /** HEALTHCHECK's command, run through `/bin/sh -c`. */
  healthcheck?: string;
  /** VOLUME paths: each exists and belongs to the image's user. */
  volumes: string[];
}

/** A host directory mounted into the image root, as `docker run -v host:image[:ro]`. */
export interface BindMount {
  host: string;
  image: string;
  readOnly?: boolean;
}

/** A process inside the image root. */
export interface RootProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** Fails with a clear message when this machine cannot stand in for a container engine. */
export function checkCanRunImageRoot(): void {
  if (process.platform !== "linux" || userInfo().uid !== 0)
    throw new Error("The production-image test needs Linux and root (mount namespaces and chroot).");
  for (const tool of ["/usr/bin/unshare", "/usr/sbin/chroot", "/usr/bin/mount"])
    if (!existsSync(tool)) throw new Error(`The production-image test needs ${tool} (util-linux / coreutils).`);
}

/** The repository's tracked files (their working-tree contents) copied into `dest`, as `COPY . .` sees them. */
export async function copyTrackedFiles(repo: string, dest: string): Promise<void> {
  const p = startOnHost(
    "/bin/sh",
    ["-c", 'git ls-files -z | tar --null -T - --ignore-failed-read -cf - | tar -xf - -C "$0"', dest],
    { cwd: repo, env: process.env },
  );
  await expectExit(p, "copying the tracked files");
}

/**
 * Runs the build stage in `buildDir` (a copy of the tracked files stands for `COPY . .`): its
 * RUN lines' `pnpm` commands with the machine's pnpm, installs offline first (the store has
 * every package) and online when that fails. Returns the build stage's WORKDIR.
 */
export async function runBuildStage(
  stage: DockerStage,
  repo: string,
  buildDir: string,
  log: (line: string) => void,
): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}` };
  // Jest's own settings must not reach the build (NODE_ENV=test, the VM-modules flag).
  delete env.NODE_ENV;
  delete env.NODE_OPTIONS;
  delete env.JEST_WORKER_ID;
  let workdir = "/";
  for (const ins of stage.instructions) {
    const where = `Dockerfile line ${ins.line} (build stage)`;
    if (ins.keyword === "WORKDIR") workdir = posix.resolve(workdir, ins.args);
    else if (ins.keyword === "ENV") for (const [k, v] of envPairs(ins.args)) env[k] = v;
    else if (ins.keyword === "COPY" && ins.args === ". .") await copyTrackedFiles(repo, buildDir);
    else if (ins.keyword === "RUN" && ins.args === "corepack enable") {
      // corepack provides the pnpm of package.json's packageManager; the machine's pnpm stands in for it.
      const wanted = (JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { packageManager: string })
        .packageManager;
      const have = (await outputOf(startOnHost("pnpm", ["--version"], { cwd: repo, env }))).trim();
      if (wanted !== `pnpm@${have}`)
        throw new Error(`${where}: package.json wants ${wanted}, this machine has pnpm ${have}`);
    } else if (ins.keyword === "RUN") {
      for (const command of ins.args.split("&&").map((c) => c.trim())) {
        const words = command.split(/\s+/);
        if (PRUNE_COMMAND.test(command)) {
          // Only inside the copy: a find from "." that removes what it finds.
          await expectExit(startOnHost("/bin/sh", ["-c", command], { cwd: buildDir, env }), command);
          continue;
        }
        if (words[0] !== "pnpm")
          throw new Error(`${where}: the test only runs pnpm commands in the build stage, not: ${command}`);
        const args = words.slice(1);
        const started = Date.now();
        if (args[0] === "install") {
          try {
            await expectExit(
              startOnHost("pnpm", [...args, "--offline"], { cwd: buildDir, env }),
              `${command} --offline`,
            );
          } catch (offline) {
            log(`${command} --offline failed, trying online: ${(offline as Error).message.slice(0, 500)}`);
            await expectExit(startOnHost("pnpm", args, { cwd: buildDir, env }), command);
          }
        } else {
          await expectExit(startOnHost("pnpm", args, { cwd: buildDir, env }), command);
        }
        log(`build stage: ${command}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
      }
    } else throw new Error(`${where}: the test does not understand ${ins.keyword} ${ins.args}`);
  }
  return workdir;
}

/**
 * Lays out the runtime stage in a fresh root: the base image's users and folders, then each
 * instruction (COPY --from=<build> with symbolic links kept, RUN through the root's /bin/sh as
 * the current USER, ENV, WORKDIR, USER); the rest is recorded. An instruction it does not know
 * fails, naming the line.
 */
export async function layOutRuntimeStage(
  stage: DockerStage,
  build: { name: string; dir: string; workdir: string },
  nodeMajor: string,
): Promise<RuntimeImage> {
  if (!new RegExp(`^node:${nodeMajor}(?:[.-]|$)`).test(stage.base))
    throw new Error(
      `The runtime stage is FROM ${stage.base}; this machine's node is ${nodeMajor}: the test would not run the same Node`,
    );
  const root = mkdtempSync(join(tmpdir(), "agentkit-image-root-"));
  chmodSync(root, 0o755);
  baseImage(root);
  const image: RuntimeImage = {
    root,
    env: { PATH: IMAGE_PATH },
    workdir: "/",
    uid: 0,
    entrypoint: [],
    exposed: [],
    volumes: [],
  };
  for (const ins of stage.instructions) {
    const where = `Dockerfile line ${ins.line} (runtime stage)`;
    switch (ins.keyword) {
      case "ENV":
        for (const [k, v] of envPairs(ins.args)) image.env[k] = v;
        break;
      case "WORKDIR":
        image.workdir = posix.resolve(image.workdir, ins.args);
        mkdirSync(join(root, image.workdir), { recursive: true });
        break;
      case "COPY":
        await copyFromBuild(ins.args, build, image, where);
        break;
      case "RUN": {
        const p = startInRoot(image, ["/bin/sh", "-c", ins.args], { env: image.env });
        await expectExit(p, `${where}: RUN ${ins.args}`);
        break;
      }
      case "USER": {
        const uid = BASE_IMAGE_USERS[ins.args];
        if (uid === undefined) throw new Error(`${where}: USER ${ins.args} is not a user of the node base image`);
        image.uid = uid;
        break;
      }
      case "EXPOSE":
        image.exposed.push(...ins.args.split(/\s+/));
        break;
      case "HEALTHCHECK": {
        const cmd = /^(?:--\S+\s+)*CMD\s+(.*)$/.exec(ins.args);
        if (!cmd) throw new Error(`${where}: the test does not understand HEALTHCHECK ${ins.args}`);
        image.healthcheck = cmd[1]!.startsWith("[") ? shellQuote(execForm("HEALTHCHECK CMD", cmd[1]!)) : cmd[1]!;
        break;
      }
      case "VOLUME":
        image.volumes.push(...(ins.args.startsWith("[") ? execForm("VOLUME", ins.args) : ins.args.split(/\s+/)));
        break;
      case "ENTRYPOINT":
        image.entrypoint = execForm("ENTRYPOINT", ins.args);
        break;
      default:
        throw new Error(
          `${where}: the test does not understand ${ins.keyword} ${ins.args}; teach it (production-image.test.ts)`,
        );
    }
  }
  if (image.entrypoint.length === 0) throw new Error("The runtime stage has no ENTRYPOINT");
  for (const volume of image.volumes) {
    const owner = existsSync(join(root, volume)) ? statSync(join(root, volume)).uid : undefined;
    if (owner !== image.uid)
      throw new Error(
        `VOLUME ${volume} must exist and belong to the image's user (uid ${image.uid}), so it can write there`,
      );
  }
  return image;
}

/**
 * Starts `argv` inside the image root: a private mount namespace binds the system directories
 * (read-only) and this machine's node at /usr/local/bin/node, then chroot as `uid` (default the
 * image's USER) into `cwd` (default WORKDIR). `env` is the whole environment.
 */
export function startInRoot(
  image: RuntimeImage,
  argv: readonly string[],
  options: { env: Record<string, string>; uid?: number; cwd?: string; binds?: readonly BindMount[] },
): RootProcess {
  const r = image.root;
  const uid = options.uid ?? image.uid;
  const bind = (host: string, at: string, readOnly: boolean) =>
    `/usr/bin/mount --bind${readOnly ? " -o ro" : ""} ${shellQuote([host])} ${shellQuote([join(r, at)])}`;
  const mounts = [
    ...SYSTEM_DIRS.map((d) => bind(`/${d}`, d, true)),
    bind(process.execPath, "usr/local/bin/node", true),
    ...(options.binds ?? []).map((b) => bind(b.host, b.image, b.readOnly ?? false)),
    `/usr/bin/mount --rbind /dev ${r}/dev`,
    `/usr/bin/mount -t proc proc ${r}/proc`,
  ];
  // exec all the way down: the spawned pid is the process itself, so stopping it stops the run.
  const script = `set -e; ${mounts.join("; ")}; exec /usr/sbin/chroot --userspec=${uid}:${uid} ${r} /bin/sh -c 'cd "$0" && exec "$@"' "$@"`;
  const p = startOnHost(
    "/usr/bin/unshare",
    ["--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh", options.cwd ?? image.workdir, ...argv],
    {
      cwd: "/",
      env: options.env,
    },
  );
  return p;
}

/** Resolves when `p` exits 0; otherwise rejects with its output. */
export async function expectExit(p: RootProcess, what: string): Promise<void> {
  const code = await p.exited;
  if (code !== 0) throw new Error(`${what} exited with ${code}:\n${p.output().slice(-4000)}`);
}

/** The base image's files the stages rely on: users, /tmp, the mount points, node's place. */
function baseImage(root: string): void {
  for (const dir of [...SYSTEM_DIRS, "usr/local/bin", "etc", "dev", "proc", "home/node", "root"])
    mkdirSync(join(root, dir), { recursive: true });
  for (const [link, target] of [
    ["bin", "usr/bin"],
    ["sbin", "usr/sbin"],
    ["lib", "usr/lib"],
    ["lib64", "usr/lib64"],
  ] as const)
    symlinkSync(target, join(root, link));
  writeFileSync(join(root, "usr/local/bin/node"), "");
  mkdirSync(join(root, "tmp"), { mode: 0o1777 });
  chmodSync(join(root, "tmp"), 0o1777);
  chownSync(join(root, "home/node"), BASE_IMAGE_USERS.node!, BASE_IMAGE_USERS.node!);
  writeFileSync(
    join(root, "etc/passwd"),
    "root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000::/home/node:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
  );
  writeFileSync(join(root, "etc/group"), "root:x:0:\nnode:x:1000:\nnogroup:x:65534:\n");
}

/** COPY --from=<build stage> src… dest, with symbolic links kept (`cp -a`, as Docker's COPY does). */
async function copyFromBuild(
  args: string,
  build: { name: string; dir: string; workdir: string },
  image: RuntimeImage,
  where: string,
): Promise<void> {
  const { flags, sources, dest } = copyArgs(args);
  const known = Object.keys(flags).filter((f) => f !== "from");
  if (flags.from !== build.name || known.length > 0)
    throw new Error(`${where}: the test only understands COPY --from=${build.name} <src>… <dest>, not COPY ${args}`);
  const target = posix.resolve(image.workdir, dest);
  const intoDir = dest.endsWith("/") || sources.length > 1;
  for (const source of sources) {
    if (/[*?[]/.test(source)) throw new Error(`${where}: wildcards in COPY sources are not understood (${source})`);
    const rel = relative(build.workdir, source);
    if (rel.startsWith("..") || posix.isAbsolute(rel))
      throw new Error(`${where}: ${source} is outside the build stage's WORKDIR ${build.workdir}`);
    const from = join(build.dir, rel);
    if (!existsSync(from)) throw new Error(`${where}: COPY source ${source} does not exist after the build stage`);
    const to = join(image.root, intoDir ? posix.join(target, basename(source)) : target);
    // A directory's contents go into the destination (merged), as COPY does; `cp -a` keeps pnpm's
    // relative symbolic links as links, so they resolve inside the root.
    const isDir = statSync(from).isDirectory();
    mkdirSync(isDir ? to : dirname(to), { recursive: true });
    const p = startOnHost("/usr/bin/cp", ["-a", isDir ? `${from}/.` : from, isDir ? `${to}/` : to], {
      cwd: "/",
      env: process.env,
    });
    await expectExit(p, `${where}: copying ${source}`);
  }
}

function shellQuote(argv: string[]): string {
  return argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
}

function startOnHost(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): RootProcess {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => {
    child.once("error", (error) => {
      out += String(error);
      resolve(-1);
    });
    child.once("close", (code) => resolve(code));
  });
  return { child, output: () => out, exited };
}

async function outputOf(p: RootProcess): Promise<string> {
  await expectExit(p, "a command");
  return p.output();
}
