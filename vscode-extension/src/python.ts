/**
 * Whether a Python can run the server, and what to tell the user when it cannot
 * (the order of candidates is in setup.ts). No `vscode` import: unit-tested.
 */
import { execFile } from "node:child_process";

/** Where the interpreter came from: `managed` is the environment "Set up ReGraphT" made. */
export type PythonSource = "setting" | "python-extension" | "managed" | "path";

export interface PythonChoice {
  command: string;
  source: PythonSource;
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

/** One message with the fix: what failed, the install command, the setup, the setting. */
export function missingServerMessage(choice: PythonChoice, detail: string): string {
  const where =
    choice.source === "setting"
      ? `regrapht.python (${choice.command})`
      : choice.source === "python-extension"
        ? `the Python extension's interpreter (${choice.command})`
        : choice.source === "managed"
          ? `the environment ReGraphT set up (${choice.command})`
          : `${choice.command} from PATH`;
  const notFound = /ENOENT|not found|No such file/i.test(detail);
  const problem = notFound
    ? `ReGraphT cannot start its server: no Python at ${where}.`
    : `ReGraphT cannot start its server: ${where} does not have ReGraphT installed.`;
  const setup = choice.source === "setting" ? "" : "choose Set up ReGraphT to let the extension make an environment for it, ";
  return (
    `${problem} Install it with \`${choice.command} -m pip install regrapht\` ` +
    `(or \`-e <ReGraphT checkout>\`), ${setup}or set regrapht.python to an interpreter that has it.`
  );
}
