/**
 * ReGraphT for VS Code: starts `python -m regrapht_server` and makes its long search
 * visible and cancellable.
 *
 * The server offers "Optimize to CUDA (ReGraphT)" as a code action carrying the command
 * `regrapht.optimize`, reports the search as work-done progress and as typed
 * `regrapht/jobProgress` payloads, and sends the result as an annotated edit that needs
 * confirmation (VS Code's Refactor Preview). The language client would show that progress
 * only as a status-bar spinner without a cancel button, so the extension names the job in
 * the command's argument, shows its payloads in a cancellable notification and a
 * status-bar item, and forwards a cancel to the server.
 */
import { randomUUID } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  State,
  WorkDoneProgressCancelNotification,
} from "vscode-languageclient/node";

import { type GraphSummary, renderGraphHtml } from "./graphView";
import { describe, isOver, JOB_PROGRESS, type JobEvents, type JobProgress, JobTracker, percentDone } from "./progress";
import { missingServerMessage, type PythonChoice, probePython } from "./python";
import { JOB_RESULT, type JobResult } from "./results";
import { ResultsView } from "./resultsView";
import { SECTION, serverKeys, serverSettings } from "./settings";
import { findServer, managedPython, setUp, spawnRun } from "./setup";

const OPTIMIZE = "regrapht.optimize";
const LANGUAGES = ["c", "cpp", "cuda-cpp"];
const OPEN_LOG = "Open log";
const OPEN_SETTINGS = "Open settings";
const SET_UP = "Set up ReGraphT";
const MANAGE_TRUST = "Manage Workspace Trust";

interface OptimizeTarget {
  uri: string;
  function: string;
  line?: number;
  /** A line inside the one loop to optimize (the cursor's, from the code action). */
  loop?: number | null;
  /** The job's id, chosen here; the server's code action leaves it null. */
  job?: string | null;
}

interface OptimizeAnswer {
  status: string;
  job: string | null;
}

interface CheckAnswer {
  model: { ok: boolean; used: boolean; error?: string; name?: string };
  gpu: { ok: boolean; device: string | null; nvcc: string | null };
  snapshot: { ok: boolean; error?: string };
  text: string;
}

interface JobView extends JobEvents {
  /** Closes the notification (the job may have ended without a last payload). */
  close(): void;
}

/** The status-bar item: idle, searching (click cancels), or failed (click opens the log). */
class StatusItem {
  readonly item = vscode.window.createStatusBarItem("regrapht.status", vscode.StatusBarAlignment.Left, 10);
  private readonly jobs = new Map<string, string>();

  constructor() {
    this.item.name = "ReGraphT";
  }

  starting(): void {
    this.set("$(loading~spin) ReGraphT", "ReGraphT: starting the server", undefined, "ReGraphT starting");
  }

  idle(): void {
    if (this.jobs.size === 0) {
      this.set("$(zap) ReGraphT", "ReGraphT is ready. Click to check the model and GPU.", "regrapht.checkSetup", "ReGraphT ready");
    }
  }

  failed(message: string): void {
    this.jobs.clear();
    this.set("$(error) ReGraphT", `${message}\nClick to open the log.`, "regrapht.showLog", "ReGraphT failed");
  }

  job(token: string, text: string): void {
    this.jobs.set(token, text);
    const [first] = this.jobs.values();
    const more = this.jobs.size > 1 ? ` (+${this.jobs.size - 1} queued)` : "";
    const label = `ReGraphT: ${first}${more}`;
    this.set(`$(sync~spin) ${label}`, "ReGraphT is optimizing. Click to cancel.", "regrapht.cancelAll", label);
  }

  done(token: string): void {
    this.jobs.delete(token);
    if (this.jobs.size) {
      const [[first, text]] = this.jobs.entries();
      this.job(first, text);
    } else {
      this.idle();
    }
  }

  private set(text: string, tooltip: string, command: string | undefined, label: string): void {
    this.item.text = text;
    this.item.accessibilityInformation = { label };
    this.item.tooltip = tooltip;
    this.item.command = command;
    this.item.show();
  }
}

class ReGraphTExtension {
  readonly output = vscode.window.createOutputChannel("ReGraphT", { log: true });
  readonly status = new StatusItem();
  readonly tracker = new JobTracker((first) => this.showJob(first.job, first.function));
  readonly results: ResultsView;
  client: LanguageClient | undefined;
  private settingUp: Promise<void> | undefined;

  constructor(private readonly context: vscode.ExtensionContext) {
    this.results = new ResultsView(context.workspaceState);
  }

  log(line: string): void {
    this.output.info(line);
  }

  // -- the server ------------------------------------------------------------------------

  async start(): Promise<void> {
    this.status.starting();
    const found = await findServer(await this.pythonCandidates(), async (command) => {
      const probe = await probePython(command);
      this.log(`python ${command}: ${probe.ok ? `${probe.detail}, has regrapht_server` : probe.detail}`);
      return probe;
    });
    if (!found.ok) {
      const last = found.tried[found.tried.length - 1];
      return this.reportMissing(last.choice, last.detail, found.offerSetup);
    }
    const python = found.choice;
    this.log(`python: ${python.command} (from ${python.source})`);
    const keys = serverKeys(this.context.extension.packageJSON.contributes.configuration.properties);
    const config = vscode.workspace.getConfiguration(SECTION);
    const serverOptions: ServerOptions = {
      command: python.command,
      args: ["-m", "regrapht_server", "--log-level", "INFO"],
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: LANGUAGES.map((language) => ({ scheme: "file", language })),
      outputChannel: this.output,
      synchronize: { configurationSection: SECTION },
      initializationOptions: { [SECTION]: serverSettings(keys, (key) => config.get(key)) },
      middleware: {
        executeCommand: (command, args, next) =>
          command === OPTIMIZE ? this.optimize(args, (named) => next(command, named)) : next(command, args),
        handleWorkDoneProgress: (token, params, next) => {
          // Job progress is shown by the notification; the default part only cleans up.
          if (!this.tracker.owns(String(token)) || params.kind === "end") {
            next(token, params);
          }
        },
      },
    };
    const client = new LanguageClient("regrapht", "ReGraphT", serverOptions, clientOptions);
    client.onNotification(JOB_PROGRESS, (progress: JobProgress) => this.tracker.handle(progress));
    client.onNotification(JOB_RESULT, (result: JobResult) => {
      this.log(`${result.job} ${result.function}: ${result.candidates.length} candidates in the results view`);
      this.results.add(result);
    });
    client.onDidChangeState((event) => {
      if (event.newState === State.Stopped && this.client === client) {
        this.status.failed("The ReGraphT server stopped.");
      }
    });
    this.client = client;
    try {
      await client.start();
    } catch (error) {
      this.log(`the client failed to start: ${String(error)}`);
      this.client = undefined;
      return this.reportMissing(python, String(error), false);
    }
    this.log("server running");
    this.status.idle();
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client?.isRunning()) {
      await client.stop();
    }
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Where to look for the server; a workspace not trusted does not pick the interpreter. */
  private async pythonCandidates(): Promise<Parameters<typeof findServer>[0]> {
    const setting = vscode.workspace.getConfiguration(SECTION).get<string>("python");
    const managed = managedPython(this.context.globalStorageUri.fsPath).python;
    return {
      setting,
      pythonExtension: vscode.workspace.isTrusted && !setting?.trim() ? await this.pythonExtensionInterpreter() : undefined,
      managed: existsSync(managed) ? managed : undefined,
    };
  }

  /** The Python extension's selected interpreter, if that extension is installed (optional). */
  private async pythonExtensionInterpreter(): Promise<string | undefined> {
    const python = vscode.extensions.getExtension("ms-python.python");
    if (!python) {
      return undefined;
    }
    try {
      const api = python.isActive ? python.exports : await python.activate();
      const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
      const active = api?.environments?.getActiveEnvironmentPath?.(resource);
      if (typeof active?.path === "string") {
        return active.path;
      }
      const details = api?.settings?.getExecutionDetails?.(resource);
      return details?.execCommand?.[0];
    } catch (error) {
      this.log(`the Python extension did not name an interpreter: ${String(error)}`);
      return undefined;
    }
  }

  /** Says what failed, with the fixes as buttons; activation does not wait for the answer. */
  private reportMissing(python: PythonChoice, detail: string, offerSetup: boolean): void {
    this.log(`the server cannot start: ${detail}`);
    const message = missingServerMessage(python, detail);
    this.status.failed(message);
    const choices = offerSetup ? [SET_UP, OPEN_LOG, OPEN_SETTINGS] : [OPEN_LOG, OPEN_SETTINGS];
    void vscode.window.showErrorMessage(message, ...choices).then((choice) => {
      if (choice === SET_UP) {
        void this.setUp();
      } else if (choice === OPEN_LOG) {
        this.output.show(true);
      } else if (choice === OPEN_SETTINGS) {
        void vscode.commands.executeCommand("workbench.action.openSettings", "regrapht.python");
      }
    });
  }

  /** First-run setup: a managed environment with ReGraphT in it, then the server from it. */
  setUp(): Promise<void> {
    this.settingUp ??= this.runSetup().finally(() => {
      this.settingUp = undefined;
    });
    return this.settingUp;
  }

  private async runSetup(): Promise<void> {
    const storage = this.context.globalStorageUri.fsPath;
    const folder = join(this.context.extensionPath, "wheels");
    const wheels = existsSync(folder) ? readdirSync(folder).map((name) => join(folder, name)) : [];
    this.output.show(true);
    this.log(`setting up ReGraphT in ${storage}`);
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: "ReGraphT: setting up", cancellable: true },
      (progress, token) => {
        const cancel = new AbortController();
        token.onCancellationRequested(() => cancel.abort());
        const trusted = vscode.workspace.isTrusted;
        return (trusted ? this.pythonExtensionInterpreter() : Promise.resolve(undefined)).then((pythonExtension) =>
          setUp(
            { storage, wheels, pythonExtension, signal: cancel.signal },
            {
              run: spawnRun,
              exists: existsSync,
              probe: (command) => probePython(command),
              step: (message) => progress.report({ message }),
              log: (line) => this.output.appendLine(line),
            },
          ),
        );
      },
    );
    if (!result.ok) {
      this.log(`setup ${result.cancelled ? "cancelled" : `failed: ${result.detail}`}`);
      if (!result.cancelled) {
        const choice = await vscode.window.showErrorMessage(`ReGraphT setup failed: ${result.detail}`, OPEN_LOG);
        if (choice === OPEN_LOG) {
          this.output.show(true);
        }
      }
      return;
    }
    this.log(`setup done: ${result.python}`);
    void vscode.window.showInformationMessage("ReGraphT is set up; starting its server.");
    await this.restart();
  }

  private running(): LanguageClient | undefined {
    if (this.client?.isRunning()) {
      return this.client;
    }
    void vscode.window.showWarningMessage("The ReGraphT server is not running.", OPEN_LOG).then((choice) => {
      if (choice === OPEN_LOG) {
        this.output.show(true);
      }
    });
    return undefined;
  }

  private executeOnServer<T>(command: string, args: unknown[] = []): Promise<T> | undefined {
    return this.running()?.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }) as
      | Promise<T>
      | undefined;
  }

  // -- a job -------------------------------------------------------------------------------

  /** A cancellable notification and the status bar, for as long as the search runs. */
  private showJob(job: string, fn: string): JobView {
    let reported = 0;
    let over = false;
    let cancelled = false;
    let cancelResent = false;
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let progress: vscode.Progress<{ message?: string; increment?: number }> | undefined;
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `ReGraphT: optimizing ${fn}`, cancellable: true },
      async (bar, cancel) => {
        progress = bar;
        bar.report({ message: "starting…" });
        cancel.onCancellationRequested(() => {
          this.log(`cancel requested for ${fn} (${job})`);
          cancelled = true;
          this.cancelJob(job);
        });
        await finished;
      },
    );
    const close = (): void => {
      if (!over) {
        over = true;
        this.status.done(job);
        finish();
      }
    };
    return {
      update: (report: JobProgress) => {
        if (cancelled && !cancelResent && report.state !== "cancelling" && !isOver(report.state)) {
          // The cancel may have reached the server before the job did: say it again, once.
          cancelResent = true;
          this.cancelJob(job);
        }
        const message = describe(report);
        const percentage = percentDone(report);
        const increment = percentage === undefined ? undefined : Math.max(0, percentage - reported);
        reported += increment ?? 0;
        progress?.report({ message, increment });
        this.log(`${job} ${fn}: ${message}`);
        if (isOver(report.state)) {
          close();
        } else if (!over) {
          this.status.job(job, `${fn} ${message}`);
        }
      },
      close,
    };
  }

  cancelJob(job: string): void {
    void this.client?.sendNotification(WorkDoneProgressCancelNotification.type, { token: job });
    this.status.job(job, "cancelling…");
  }

  /** Names the job in the command's argument, then shows its payloads until the answer. */
  private async optimize(args: unknown[], run: (args: unknown[]) => vscode.ProviderResult<unknown>): Promise<unknown> {
    const target = (args[0] ?? {}) as OptimizeTarget;
    const fn = target.function ?? "?";
    if (!vscode.workspace.isTrusted) {
      // Optimizing compiles and runs the function (and what it includes) on this machine.
      this.log(`${fn}: not optimized, the workspace is not trusted`);
      const choice = await vscode.window.showWarningMessage(
        "ReGraphT compiles and runs the code it optimizes: trust this workspace first.",
        MANAGE_TRUST,
      );
      if (choice === MANAGE_TRUST) {
        await vscode.commands.executeCommand("workbench.trust.manage");
      }
      return { status: "untrusted", job: null };
    }
    const job = target.job ?? `vscode-${randomUUID()}`;
    const view = this.showJob(job, fn);
    const forget = this.tracker.expect(job, view);
    this.log(`${job}: optimizing ${fn}`);
    try {
      const answer = (await run([{ ...target, job }, ...args.slice(1)])) as OptimizeAnswer | undefined;
      this.log(`${job} ${fn}: ${answer?.status ?? "no answer"}`);
      if (answer?.status === "applied") {
        vscode.window.setStatusBarMessage(`ReGraphT: ${fn} optimized`, 5000);
      }
      return answer;
    } finally {
      forget();
      view.close();
    }
  }

  // -- commands ----------------------------------------------------------------------------

  async optimizeAtCursor(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor || !LANGUAGES.includes(editor.document.languageId)) {
      void vscode.window.showInformationMessage("ReGraphT: open a C, C++ or CUDA file and put the cursor in a loop.");
      return;
    }
    if (!this.running()) {
      return;
    }
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      "vscode.executeCodeActionProvider",
      editor.document.uri,
      editor.selection,
      vscode.CodeActionKind.RefactorRewrite.value,
    );
    const action = actions?.find((a) => a.command?.command === OPTIMIZE);
    if (!action?.command) {
      void vscode.window.showInformationMessage(
        "ReGraphT: nothing to optimize here. Put the cursor in a function with a loop, or in a __global__ kernel.",
      );
      return;
    }
    if (action.disabled) {
      void vscode.window.showWarningMessage(`ReGraphT: ${action.disabled.reason}`);
      return;
    }
    await vscode.commands.executeCommand(action.command.command, ...(action.command.arguments ?? []));
  }

  async cancelAll(): Promise<void> {
    const ids = await this.executeOnServer<string[]>("regrapht.cancel");
    if (ids === undefined) {
      return;
    }
    for (const id of ids) {
      this.status.job(id, "cancelling…");
    }
    void vscode.window.showInformationMessage(
      ids.length ? `ReGraphT: cancelling ${ids.length} optimization(s).` : "ReGraphT: nothing is running.",
    );
  }

  async checkSetup(): Promise<void> {
    const pending = this.executeOnServer<CheckAnswer>("regrapht.check", [{ answer: true }]);
    if (!pending) {
      return;
    }
    const answer = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: "ReGraphT: checking the model and GPU…" },
      () => pending,
    );
    this.output.appendLine(answer.text);
    const document = await vscode.workspace.openTextDocument({ language: "markdown", content: answer.text });
    await vscode.window.showTextDocument(document, { preview: true });
    const model = !answer.model.used ? "model off" : answer.model.ok ? `model ${answer.model.name ?? "ok"}` : "model: problem";
    const gpu = answer.gpu.ok ? `GPU ${answer.gpu.device}` : "no GPU (compile only)";
    const nvcc = answer.gpu.nvcc ? `nvcc ${answer.gpu.nvcc}` : "no nvcc";
    const summary = `ReGraphT: ${model}, ${gpu}, ${nvcc}.`;
    const fine = (answer.model.ok || !answer.model.used) && answer.gpu.nvcc && answer.snapshot.ok;
    void (fine ? vscode.window.showInformationMessage(summary) : vscode.window.showWarningMessage(summary));
  }

  async showGraph(): Promise<void> {
    const pending = this.executeOnServer<GraphSummary>("regrapht.graph");
    if (!pending) {
      return;
    }
    let summary: GraphSummary;
    try {
      summary = await pending;
    } catch (error) {
      void vscode.window.showErrorMessage(`ReGraphT: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const panel = vscode.window.createWebviewPanel("regrapht.graph", "ReGraph", vscode.ViewColumn.Beside, {
      enableScripts: false,
    });
    panel.webview.html = renderGraphHtml(summary, panel.webview.cspSource);
  }
}

let extension: ReGraphTExtension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const ext = new ReGraphTExtension(context);
  extension = ext;
  context.subscriptions.push(
    ext.output,
    ext.status.item,
    vscode.commands.registerCommand("regrapht.optimizeAtCursor", () => ext.optimizeAtCursor()),
    vscode.commands.registerCommand("regrapht.cancelAll", () => ext.cancelAll()),
    vscode.commands.registerCommand("regrapht.showGraph", () => ext.showGraph()),
    vscode.commands.registerCommand("regrapht.showLog", () => ext.output.show(true)),
    vscode.commands.registerCommand("regrapht.checkSetup", () => ext.checkSetup()),
    vscode.commands.registerCommand("regrapht.restartServer", () => ext.restart()),
    vscode.commands.registerCommand("regrapht.setUp", () => ext.setUp()),
    vscode.commands.registerCommand("regrapht.showResults", (job?: string) => ext.results.show(job)),
    vscode.commands.registerCommand("regrapht.clearResults", () => ext.results.clear()),
    ext.results.tree,
    vscode.languages.registerCodeLensProvider(
      LANGUAGES.map((language) => ({ scheme: "file", language })),
      ext.results,
    ),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      // The Python extension's interpreter may now be used.
      ext.log("the workspace is trusted now: restarting the server");
      void ext.restart();
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      // Server settings reach it live (synchronize.configurationSection); the interpreter
      // can only change with a new process.
      if (event.affectsConfiguration(`${SECTION}.python`)) {
        ext.log("regrapht.python changed: restarting the server");
        void ext.restart();
      }
    }),
  );
  await ext.start();
}

export async function deactivate(): Promise<void> {
  await extension?.stop();
  extension = undefined;
}
