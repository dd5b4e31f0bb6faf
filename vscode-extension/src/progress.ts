/**
 * The server's job progress, read for the notification and the status bar.
 * No `vscode` import: the reading and the routing of jobs are unit-tested.
 *
 * The server sends `regrapht/jobProgress` with a typed payload (its `JobProgress`, in
 * server/regrapht_server/progress.py; docs/server.md). The extension names its jobs
 * itself (the `job` argument of `regrapht.optimize`), so it knows each payload's job
 * without reading titles or messages.
 */

export const JOB_PROGRESS = "regrapht/jobProgress";

/** `cancelling`: cancel accepted, the search finishes its step. The last three end a job's reports. */
export type JobState = "queued" | "running" | "cancelling" | "done" | "failed" | "cancelled";

/** Mirrors the server's `JobProgress`; every payload is whole. */
export interface JobProgress {
  job: string;
  uri: string;
  function: string;
  state: JobState;
  evaluations: number;
  budget: number;
  /** Of the best verified candidate; null until one is timed (never without a GPU). */
  bestSpeedup: number | null;
  /** The id of the technique the last candidate applied; null before the first. */
  technique: string | null;
  techniqueName: string | null;
  /** null until the server knows; false: candidates are compiled, not run. */
  gpu: boolean | null;
  stopReason: string | null;
  /** The search has ended; its best candidate is being confirmed (timed again, compute-sanitizer). */
  confirming: boolean;
}

export function isOver(state: JobState): boolean {
  return state === "done" || state === "failed" || state === "cancelled";
}

/** How far the search is, 0-100, once it has evaluated a candidate. */
export function percentDone(progress: JobProgress): number | undefined {
  if (progress.technique === null) {
    return undefined;
  }
  return Math.min(100, Math.floor((progress.evaluations * 100) / Math.max(progress.budget, 1)));
}

/** `3/12 candidates tried · best 1.84x · now: Shared-memory tiling`, for the notification. */
export function describe(progress: JobProgress): string {
  switch (progress.state) {
    case "queued":
      return "waiting for the running job";
    case "running":
      break;
    case "cancelling":
      return "cancelling…";
    case "failed":
      return "failed";
    case "done":
    case "cancelled":
      return `${progress.evaluations} candidates (${progress.stopReason ?? progress.state})`;
  }
  if (progress.gpu === null) {
    return "starting…";
  }
  if (progress.technique === null) {
    return progress.gpu ? "searching" : "searching (no GPU: compiled, not run)";
  }
  if (progress.confirming) {
    const best = progress.bestSpeedup === null ? "" : ` (${progress.bestSpeedup.toFixed(2)}x)`;
    return `confirming the best candidate${best} before it is offered`;
  }
  const parts = [`${progress.evaluations}/${progress.budget} candidates tried`];
  if (progress.bestSpeedup !== null) {
    parts.push(`best ${progress.bestSpeedup.toFixed(2)}x`);
  } else if (!progress.gpu) {
    parts.push("not timed (no GPU)");
  }
  parts.push(`now: ${progress.techniqueName ?? progress.technique}`);
  return parts.join(" · ");
}

/** Where one job's payloads go. */
export interface JobEvents {
  update(progress: JobProgress): void;
}

/**
 * Routes the server's payloads to the job they name. A job this extension started is
 * expected under the id it gave; a job nobody expects (a re-run the server started
 * itself) goes to `orphan`, which may show it.
 */
export class JobTracker {
  private readonly jobs = new Map<string, JobEvents>();

  constructor(private readonly orphan?: (first: JobProgress) => JobEvents | undefined) {}

  /** Sends the payloads of `job` to `events` until its last, or until the returned function is called. */
  expect(job: string, events: JobEvents): () => void {
    this.jobs.set(job, events);
    return () => {
      if (this.jobs.get(job) === events) {
        this.jobs.delete(job);
      }
    };
  }

  /** Whether a work-done progress token is a job's (the notification shows it instead). */
  owns(token: string): boolean {
    return this.jobs.has(token);
  }

  /** Hands a payload to its job's events; a job is forgotten after its last payload. */
  handle(progress: JobProgress): void {
    let events = this.jobs.get(progress.job);
    if (events === undefined && !isOver(progress.state)) {
      events = this.orphan?.(progress);
      if (events !== undefined) {
        this.jobs.set(progress.job, events);
      }
    }
    if (isOver(progress.state)) {
      this.jobs.delete(progress.job);
    }
    events?.update(progress);
  }
}
