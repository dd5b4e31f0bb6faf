/**
 * A throw-away VS Code (code-server) for the real-editor test, and its teardown.
 *
 * Everything lives in one temporary folder: HOME, XDG folders, user data, extensions, the
 * workspace. code-server binds to 127.0.0.1 with auth off; telemetry, update checks,
 * workspace trust and the getting-started page are off; the extension gallery points at a
 * loopback dummy that knows no extensions. Teardown kills what was started by process id:
 * code-server and every process below it (extension host, file watchers, the language
 * server), and the browser.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const CODE_SERVER_VERSION = "4.139.1";
export const NODE_VERSION = "24.21.0";

export interface Paths {
  repo: string;
  cache: string;
  codeServer: string;
  nodeBin: string;
  vsix: string;
  python: string;
  chromium: string;
  artifacts: string;
}

export function paths(): Paths {
  const repo = join(__dirname, "..", "..", "..");
  const cache = process.env.REGRAPHT_EDITOR_CACHE || join(process.env.HOME ?? tmpdir(), ".cache", "regrapht-editor");
  return {
    repo,
    cache,
    codeServer: join(cache, `code-server-${CODE_SERVER_VERSION}`, "node_modules", ".bin", "code-server"),
    nodeBin: join(cache, `node-${NODE_VERSION}`, "bin"),
    vsix: process.env.REGRAPHT_VSIX || join(repo, "vscode-extension", "regrapht.vsix"),
    python: process.env.REGRAPHT_PYTHON || join(repo, ".venv", "bin", "python"),
    chromium: process.env.REGRAPHT_CHROMIUM || "/usr/bin/chromium",
    artifacts: process.env.REGRAPHT_EDITOR_ARTIFACTS || join(repo, "build", "editor-test"),
  };
}

/** A loopback server that answers every gallery query with "no extensions". */
export async function dummyGallery(): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    request.resume();
    response.setHeader("content-type", "application/json");
    if (request.method === "POST") {
      response.end(JSON.stringify({ results: [{ extensions: [], resultMetadata: [] }] }));
    } else {
      response.statusCode = 404;
      response.end("{}");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}` };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface Sandbox {
  root: string;
  home: string;
  userData: string;
  extensions: string;
  workspace: string;
  env: NodeJS.ProcessEnv;
}

export function sandbox(p: Paths, galleryUrl: string, settings: Record<string, unknown>): Sandbox {
  const root = mkdtempSync(join(tmpdir(), "regrapht-editor-"));
  const home = join(root, "home");
  const userData = join(root, "user-data");
  const extensions = join(root, "extensions");
  const workspace = join(root, "workspace");
  for (const dir of [home, userData, extensions, workspace, join(userData, "User"), join(userData, "Machine")]) {
    mkdirSync(dir, { recursive: true });
  }
  cpSync(join(p.repo, "vscode-extension", "test", "editor", "workspace"), workspace, { recursive: true });
  // User settings (read by the browser side) and the remote machine's (code-server reads
  // machine-scoped settings such as regrapht.python from there).
  writeFileSync(join(userData, "User", "settings.json"), JSON.stringify(settings, null, 2));
  writeFileSync(join(userData, "Machine", "settings.json"), JSON.stringify(settings, null, 2));
  const env: NodeJS.ProcessEnv = {
    PATH: `${p.nodeBin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    LANG: "C.UTF-8",
    // The gallery: a loopback dummy, so nothing is fetched.
    EXTENSIONS_GALLERY: JSON.stringify({
      serviceUrl: `${galleryUrl}/api`,
      itemUrl: `${galleryUrl}/item`,
      resourceUrlTemplate: `${galleryUrl}/resource/{publisher}/{name}/{version}/{path}`,
    }),
  };
  // The model cache the embedded model would use stays the real one (rewriters only here).
  return { root, home, userData, extensions, workspace, env };
}

function codeServerArgs(box: Sandbox): string[] {
  const config = join(box.root, "code-server.yaml");
  writeFileSync(config, "auth: none\ncert: false\n");
  return [
    "--config",
    config,
    "--auth",
    "none",
    "--user-data-dir",
    box.userData,
    "--extensions-dir",
    box.extensions,
    "--disable-telemetry",
    "--disable-update-check",
    "--disable-workspace-trust",
    "--disable-getting-started-override",
  ];
}

export function installExtension(p: Paths, box: Sandbox): string {
  const done = spawnSync(p.codeServer, [...codeServerArgs(box), "--install-extension", p.vsix], {
    env: box.env,
    encoding: "utf8",
    timeout: 120_000,
  });
  const output = `${done.stdout}\n${done.stderr}`;
  if (done.status !== 0) {
    throw new Error(`code-server --install-extension failed (${done.status}):\n${output}`);
  }
  return output;
}

export interface Running {
  child: ChildProcess;
  url: string;
  log: string[];
}

/** Starts code-server and resolves when it says it is listening (its own log line). */
export function startCodeServer(p: Paths, box: Sandbox, port: number): Promise<Running> {
  const child = spawn(p.codeServer, [...codeServerArgs(box), "--bind-addr", `127.0.0.1:${port}`, box.workspace], {
    env: box.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`code-server did not start:\n${log.join("")}`)), 90_000);
    const onData = (chunk: Buffer): void => {
      const text = chunk.toString();
      log.push(text);
      if (/HTTP server listening on/.test(log.join(""))) {
        clearTimeout(timer);
        resolve({ child, url: `http://127.0.0.1:${port}`, log });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`code-server exited (${code}):\n${log.join("")}`));
    });
  });
}

/** Every process below `pid`, from /proc (children first listed last). */
export function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // The command name is in parentheses and may hold spaces: read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // the process ended while we looked
    }
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length) {
    const at = queue.shift() as number;
    for (const child of parents.get(at) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
}

/** Kills `pid` and everything below it, by process id: TERM, then KILL what is left. */
export async function killTree(pid: number | undefined): Promise<void> {
  if (pid === undefined) {
    return;
  }
  const all = [pid, ...descendants(pid)];
  for (const each of all) {
    try {
      process.kill(each, "SIGTERM");
    } catch {
      // already gone
    }
  }
  const deadline = Date.now() + 10_000;
  while (all.some(alive) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const each of all.filter(alive)) {
    try {
      process.kill(each, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/** The extension's own log (its output channel), wherever this VS Code wrote it. */
export function extensionLog(box: Sandbox): string {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(path);
      } else if (entry.name.endsWith("ReGraphT.log")) {
        found.push(readFileSync(path, "utf8"));
      }
    }
  };
  if (existsSync(join(box.userData, "logs"))) {
    walk(join(box.userData, "logs"));
  }
  return found.join("\n");
}

export function removeSandbox(box: Sandbox | undefined): void {
  if (box) {
    rmSync(box.root, { recursive: true, force: true });
  }
}
