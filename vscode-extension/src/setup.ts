/**
 * Which Python runs the server, and the first-run setup when none has it.
 * No `vscode` import, and every process call is injected: the decisions are unit-tested.
 *
 * Without `regrapht.python`, the extension tries, in order, the Python extension's
 * interpreter (in a trusted workspace only: a workspace's own environment runs code from
 * it), the managed environment this setup made, and `python3` from `PATH`; the first that
 * imports `regrapht_server` runs the server. When none does, "Set up ReGraphT" makes the
 * managed environment in the extension's global storage with `python -m venv`, and installs
 * the `regrapht` package into it with pip: the wheel the .vsix carries if it has one, else
 * `regrapht` from pip's configured index (PyPI unless pip.conf or PIP_INDEX_URL say other).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";

import { type PythonChoice, type ProbeResult } from "./python";

/** The PyPI name of the package that holds `regrapht_server`. */
export const PACKAGE = "regrapht";
export const MIN_PYTHON: readonly [number, number] = [3, 11];

export interface Tried {
  choice: PythonChoice;
  detail: string;
}

export type Found = { ok: true; choice: PythonChoice } | { ok: false; tried: Tried[]; offerSetup: boolean };

export interface Candidates {
  /** `regrapht.python`, as set (blank: unset). */
  setting?: string;
  /** The Python extension's interpreter; pass it only for a trusted workspace. */
  pythonExtension?: string;
  /** The managed environment's interpreter, if the setup made one. */
  managed?: string;
}

/** The interpreters to try, in order: the setting alone when it is set. */
export function candidates({ setting, pythonExtension, managed }: Candidates): PythonChoice[] {
  const configured = setting?.trim();
  if (configured) {
    return [{ command: configured, source: "setting" }];
  }
  const list: PythonChoice[] = [];
  if (pythonExtension?.trim()) {
    list.push({ command: pythonExtension.trim(), source: "python-extension" });
  }
  if (managed) {
    list.push({ command: managed, source: "managed" });
  }
  list.push({ command: "python3", source: "path" });
  return list;
}

/**
 * The first candidate that imports `regrapht_server`. Setup is offered only when the user
 * did not name an interpreter: an explicit `regrapht.python` is theirs to fix.
 */
export async function findServer(from: Candidates, probe: (command: string) => Promise<ProbeResult>): Promise<Found> {
  const tried: Tried[] = [];
  for (const choice of candidates(from)) {
    const result = await probe(choice.command);
    if (result.ok) {
      return { ok: true, choice };
    }
    tried.push({ choice, detail: result.detail });
  }
  return { ok: false, tried, offerSetup: !from.setting?.trim() };
}

/** The managed environment's folder and interpreter, under the extension's global storage. */
export function managedPython(storage: string, platform: NodeJS.Platform = process.platform): { venv: string; python: string } {
  const venv = join(storage, "venv");
  const python = platform === "win32" ? join(venv, "Scripts", "python.exe") : join(venv, "bin", "python");
  return { venv, python };
}

/** Interpreters that may make the environment, best first (deduplicated). */
export function baseCandidates(pythonExtension: string | undefined, platform: NodeJS.Platform = process.platform): string[] {
  const names = platform === "win32" ? ["py", "python"] : ["python3", "python3.13", "python3.12", "python3.11"];
  return [...new Set([pythonExtension?.trim(), ...names].filter((c): c is string => Boolean(c)))];
}

export const VERSION_PROBE = "import sys; print('%d.%d' % sys.version_info[:2])";

/** `3.12` → [3, 12]; anything else → undefined. */
export function parseVersion(text: string): [number, number] | undefined {
  const match = /^(\d+)\.(\d+)$/.exec(text.trim());
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}

export function newEnough(version: readonly [number, number]): boolean {
  return version[0] > MIN_PYTHON[0] || (version[0] === MIN_PYTHON[0] && version[1] >= MIN_PYTHON[1]);
}

/** The newest bundled wheel (by version in the name), else the package name from the index. */
export function installTarget(wheels: readonly string[]): string {
  const ours = wheels.filter((w) => /(^|[/\\])regrapht-[^/\\]+\.whl$/.test(w));
  if (!ours.length) {
    return PACKAGE;
  }
  const version = (w: string): number[] => (/regrapht-([\d.]+)/.exec(w)?.[1] ?? "0").split(".").filter(Boolean).map(Number);
  const newer = (a: string, b: string): number => {
    const [x, y] = [version(a), version(b)];
    for (let i = 0; i < Math.max(x.length, y.length); i += 1) {
      if ((x[i] ?? 0) !== (y[i] ?? 0)) {
        return (y[i] ?? 0) - (x[i] ?? 0);
      }
    }
    return 0;
  };
  return [...ours].sort(newer)[0];
}

/** A process run: exit code (null if killed) and its output. */
export interface RunResult {
  code: number | null;
  output: string;
}

/** Runs a command; `onLine` sees its output line by line; `signal` stops it. */
export type Run = (
  command: string,
  args: string[],
  options: { signal?: AbortSignal; onLine?: (line: string) => void },
) => Promise<RunResult>;

export interface SetupDeps {
  run: Run;
  exists: (path: string) => boolean;
  probe: (command: string) => Promise<ProbeResult>;
  /** A step for the progress notification. */
  step: (message: string) => void;
  /** A line for the output channel. */
  log: (line: string) => void;
}

export interface SetupInput {
  storage: string;
  /** Wheels the .vsix carries (paths). */
  wheels: readonly string[];
  pythonExtension?: string;
  signal?: AbortSignal;
  platform?: NodeJS.Platform;
}

export type SetupResult = { ok: true; python: string } | { ok: false; cancelled: boolean; detail: string };

function lastLines(text: string, count = 5): string {
  return text.trim().split("\n").slice(-count).join("\n");
}

/**
 * Makes (or repairs) the managed environment and installs ReGraphT into it. An existing
 * environment is reused, so a second run only installs; every step is logged whole.
 */
export async function setUp(input: SetupInput, deps: SetupDeps): Promise<SetupResult> {
  const { venv, python } = managedPython(input.storage, input.platform);
  const stopped = (): SetupResult => ({ ok: false, cancelled: true, detail: "cancelled" });
  const run = async (command: string, args: string[]): Promise<RunResult> => {
    deps.log(`$ ${command} ${args.join(" ")}`);
    const result = await deps.run(command, args, { signal: input.signal, onLine: deps.log });
    deps.log(`(exit ${result.code ?? "killed"})`);
    return result;
  };
  if (!deps.exists(python)) {
    deps.step("finding Python 3.11 or newer…");
    let base: string | undefined;
    const seen: string[] = [];
    for (const command of baseCandidates(input.pythonExtension, input.platform)) {
      const answer = await run(command, ["-c", VERSION_PROBE]);
      if (input.signal?.aborted) {
        return stopped();
      }
      const version = answer.code === 0 ? parseVersion(answer.output) : undefined;
      seen.push(`${command}: ${version ? version.join(".") : "not found"}`);
      if (version && newEnough(version)) {
        base = command;
        break;
      }
    }
    if (!base) {
      return {
        ok: false,
        cancelled: false,
        detail: `ReGraphT needs Python ${MIN_PYTHON.join(".")} or newer; found ${seen.join(", ")}. Install one, or set regrapht.python.`,
      };
    }
    deps.step(`creating an environment with ${base}…`);
    const made = await run(base, ["-m", "venv", venv]);
    if (input.signal?.aborted) {
      return stopped();
    }
    if (made.code !== 0) {
      return { ok: false, cancelled: false, detail: `${base} -m venv failed:\n${lastLines(made.output)}` };
    }
  }
  const target = installTarget(input.wheels);
  deps.step(target === PACKAGE ? `installing ${PACKAGE} from the package index…` : "installing the bundled ReGraphT…");
  const installed = await run(python, ["-m", "pip", "install", "--disable-pip-version-check", "--upgrade", target]);
  if (input.signal?.aborted) {
    return stopped();
  }
  if (installed.code !== 0) {
    return { ok: false, cancelled: false, detail: `pip install ${target} failed:\n${lastLines(installed.output)}` };
  }
  deps.step("checking the server…");
  const probe = await deps.probe(python);
  return probe.ok ? { ok: true, python } : { ok: false, cancelled: false, detail: probe.detail };
}

const OUTPUT_CAP = 64 * 1024;

/** The real `Run`: a child process without a shell, killed when `signal` aborts. */
export const spawnRun: Run = (command, args, { signal, onLine }) =>
  new Promise((resolve) => {
    let output = "";
    let pending = "";
    const child = spawn(command, args, { signal, stdio: ["ignore", "pipe", "pipe"] });
    const take = (chunk: Buffer): void => {
      const text = chunk.toString();
      output = (output + text).slice(-OUTPUT_CAP);
      const lines = (pending + text).split(/\r?\n/);
      pending = lines.pop() ?? "";
      lines.forEach((line) => onLine?.(line));
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    // A missing command or an abort: no exit code (a later "close" changes nothing).
    child.on("error", (error) => resolve({ code: null, output: `${output}${String(error)}` }));
    child.on("close", (code) => {
      if (pending) {
        onLine?.(pending);
      }
      resolve({ code, output });
    });
  });
