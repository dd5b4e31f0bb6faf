/**
 * Which Python runs the server, and what to tell the user when it cannot.
 * No `vscode` import: the order of candidates and the messages are unit-tested.
 */
import { execFile } from "node:child_process";

export type PythonSource = "setting" | "python-extension" | "path";

export interface PythonChoice {
  command: string;
  source: PythonSource;
}

/** `regrapht.python` first, then the Python extension's interpreter, then `python3`. */
export function choosePython(setting: string | undefined, fromExtension: string | undefined): PythonChoice {
  const configured = setting?.trim();
  if (configured) {
    return { command: configured, source: "setting" };
  }
  const selected = fromExtension?.trim();
  if (selected) {
    return { command: selected, source: "python-extension" };
  }
  return { command: "python3", source: "path" };
}

export const PROBE = "import regrapht_server, sys; print(sys.version.split()[0])";

export interface ProbeResult {
  ok: boolean;
  /** Python's version when it ran; the error text when it did not. */
  detail: string;
}

/** Runs `<python> -c "import regrapht_server"`: proves the server can start before the client tries. */
export function probePython(command: string, timeoutMs = 30_000): Promise<ProbeResult> {
  return new Promise((resolve) => {
    execFile(command, ["-c", PROBE], { timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error) {
        const text = (stderr || error.message).trim().split("\n").slice(-3).join("\n");
        resolve({ ok: false, detail: text });
      } else {
        resolve({ ok: true, detail: stdout.trim() });
      }
    });
  });
}

/** One message with the fix: what failed, the install command, the setting to set. */
export function missingServerMessage(choice: PythonChoice, detail: string): string {
  const where =
    choice.source === "setting"
      ? `regrapht.python (${choice.command})`
      : choice.source === "python-extension"
        ? `the Python extension's interpreter (${choice.command})`
        : `${choice.command} from PATH`;
  const notFound = /ENOENT|not found|No such file/i.test(detail);
  const problem = notFound
    ? `ReGraphT cannot start its server: no Python at ${where}.`
    : `ReGraphT cannot start its server: ${where} does not have ReGraphT installed.`;
  return (
    `${problem} Install it with \`${choice.command} -m pip install -e <ReGraphT checkout>\` ` +
    "(or run `make demo` in the checkout and set regrapht.python to its .venv/bin/python), " +
    "or set regrapht.python to an interpreter that has it."
  );
}
