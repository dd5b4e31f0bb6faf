/**
 * What finished jobs found, for the "ReGraphT Results" view and the code lens.
 * No `vscode` import: the rows, the lens text and where the lens goes are unit-tested.
 *
 * The server sends `regrapht/jobResult` once per finished job (its `JobResult`, in
 * server/regrapht_server/results.py; docs/server.md): every candidate the search evaluated,
 * with the verifier's status, speedup and reason, and the job's time split.
 */

export const JOB_RESULT = "regrapht/jobResult";

/** Mirrors the server's `CandidateRow`. */
export interface CandidateRow {
  index: number;
  /** The candidate it was derived from; null: from the sequential code. */
  parent: number | null;
  technique: string;
  techniqueName: string;
  /** `model:<name>` or `rewriter:<technique>`. */
  producer: string;
  phase: string;
  /** The verifier's status: `verified`, `not_run`, `compile_error`, `wrong_output`, ... */
  status: string;
  speedup: number | null;
  /** Why it was refused or failed, trimmed by the server. */
  feedback: string;
}

export interface TimeSplit {
  total: number;
  propose: number;
  compile: number;
  run: number;
  search: number;
}

/** Mirrors the server's `JobResult`. */
export interface JobResult {
  job: string;
  uri: string;
  function: string;
  state: "done" | "cancelled";
  gpu: boolean;
  model: string;
  stopReason: string;
  /** The index of the candidate offered as the edit; null: nothing offered. */
  offered: number | null;
  /** The offered candidate was run, checked and timed faster. */
  verified: boolean;
  speedup: number | null;
  techniques: string[];
  /** Why nothing was offered; empty otherwise. */
  summary: string;
  time: TimeSplit;
  candidates: CandidateRow[];
}

/** A row of the results view, with its children (a job's candidates). */
export interface Row {
  id: string;
  label: string;
  description: string;
  tooltip: string;
  /** A codicon name. */
  icon: string;
  children: Row[];
}

function plural(count: number, one: string): string {
  return `${count} ${one}${count === 1 ? "" : "s"}`;
}

/** `8.13x faster`, `compiled only, not timed`, or `no faster version`: the job's verdict. */
export function verdict(result: JobResult): string {
  if (result.offered === null) {
    return result.state === "cancelled" ? "cancelled, nothing offered" : "no faster version";
  }
  if (result.verified && result.speedup !== null) {
    return `${result.speedup.toFixed(2)}x faster`;
  }
  return "compiled only, not timed";
}

/** The code lens above the function: `ReGraphT: 8.13x faster · 3 techniques`. */
export function lensTitle(result: JobResult): string {
  const count =
    result.offered === null ? plural(result.candidates.length, "candidate") : plural(result.techniques.length, "technique");
  return `ReGraphT: ${verdict(result)} · ${count}`;
}

function seconds(value: number): string {
  return value < 10 ? `${value.toFixed(1)} s` : `${Math.round(value)} s`;
}

/** `12 s: propose 1.0 s · compile 8.2 s · run 2.1 s · search 0.7 s`. */
export function timeText(time: TimeSplit): string {
  const parts = (["propose", "compile", "run", "search"] as const).map((part) => `${part} ${seconds(time[part])}`);
  return `${seconds(time.total)}: ${parts.join(" · ")}`;
}

/** `verified 2.10x`, `compiled, not run`, `compile error`. */
export function statusText(row: CandidateRow): string {
  if (row.status === "verified") {
    return row.speedup === null ? "verified" : `verified ${row.speedup.toFixed(2)}x`;
  }
  if (row.status === "not_run") {
    return "compiled, not run";
  }
  return row.status.replace(/_/g, " ");
}

function candidateIcon(row: CandidateRow, offered: boolean): string {
  if (offered) {
    return "star-full";
  }
  if (row.status === "verified") {
    return "pass";
  }
  return row.status === "not_run" ? "circle-large-outline" : "error";
}

function fileName(uri: string): string {
  return decodeURIComponent(uri.slice(uri.lastIndexOf("/") + 1));
}

/** A job and its candidates (and its time split) as rows of the view. */
export function jobRow(result: JobResult): Row {
  const time: Row = {
    id: `${result.job}/time`,
    label: "Time",
    description: timeText(result.time),
    tooltip: "Where the job's seconds went: the model and rewriters (propose), the static gate and nvcc (compile), correctness runs and timing (run), the search itself.",
    icon: "clock",
    children: [],
  };
  const candidates = result.candidates.map((row): Row => {
    const offered = row.index === result.offered;
    const from = row.parent === null ? "the sequential code" : `#${row.parent}`;
    const tooltip = [
      `${row.techniqueName} applied to ${from} by ${row.producer} (${row.phase})`,
      `${statusText(row)}${offered ? " — offered as the edit" : ""}`,
      row.feedback,
    ]
      .filter(Boolean)
      .join("\n\n");
    return {
      id: `${result.job}/${row.index}`,
      label: `#${row.index} ${row.techniqueName}`,
      description: `${statusText(row)} · ${row.producer}`,
      tooltip,
      icon: candidateIcon(row, offered),
      children: [],
    };
  });
  const tooltip = [
    `${result.function} in ${fileName(result.uri)}: ${verdict(result)}`,
    `${plural(result.candidates.length, "candidate")}, stopped by ${result.stopReason}; model ${result.model}` +
      (result.gpu ? "" : "; no GPU: compiled, not run"),
    result.summary,
  ]
    .filter(Boolean)
    .join("\n\n");
  return {
    id: result.job,
    label: result.function,
    description: `${verdict(result)} · ${plural(result.candidates.length, "candidate")} · ${fileName(result.uri)}`,
    tooltip,
    icon: result.verified ? "zap" : result.offered === null ? "circle-slash" : "circle-large-outline",
    children: [time, ...candidates],
  };
}

/**
 * The zero-based line of the definition of `name`: the first line where the name is
 * followed by `(` and preceded by a type or qualifier (`void smooth(`, `__global__ void k(`)
 * or at the line's start,
 * which is not a statement (`;` after the call), skipping comments. `undefined` if none.
 */
export function definitionLine(lines: readonly string[], name: string): number | undefined {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  // A type before the name, or the name at the line's start (the type on the line above).
  const pattern = new RegExp(`^(?:\\s*[A-Za-z_][\\w:<>,\\s]*[\\s*&])?${escaped}\\s*\\(`);
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    if (/^\s*(\/\/|\/?\*|#)/.test(line) || /^\s*(return|else|case)\b/.test(line)) {
      continue;
    }
    if (pattern.test(line) && !/\)\s*;\s*(\/\/.*)?$/.test(line)) {
      return i;
    }
  }
  return undefined;
}

/** The last results, newest first: the view's jobs, and the lens's "last job on a function". */
export class ResultStore {
  private results: JobResult[] = [];

  constructor(
    private readonly keep = 20,
    initial: readonly JobResult[] = [],
  ) {
    this.results = initial.slice(0, keep);
  }

  add(result: JobResult): void {
    this.results = [result, ...this.results.filter((r) => r.job !== result.job)].slice(0, this.keep);
  }

  all(): readonly JobResult[] {
    return this.results;
  }

  clear(): void {
    this.results = [];
  }

  /** The newest result of each function of a document. */
  latestIn(uri: string): JobResult[] {
    const seen = new Set<string>();
    return this.results.filter((r) => r.uri === uri && !seen.has(r.function) && seen.add(r.function));
  }
}
