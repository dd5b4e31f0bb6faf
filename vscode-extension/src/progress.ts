/**
 * The server's job progress, read for the notification and the status bar.
 * No `vscode` import: parsing and the matching of jobs to commands are unit-tested.
 */

/** What a report says: `N/budget candidates, best X.XXx, <technique>` (or `not timed (no GPU)`). */
export interface JobReport {
  evaluated?: number;
  budget?: number;
  best?: string;
  technique?: string;
  text: string;
}

const REPORT = /^(\d+)\/(\d+) candidates(?:, (best [^,]+|not timed \(no GPU\)))?(?:, (.+))?$/;

export function parseReport(message: string): JobReport {
  const found = REPORT.exec(message.trim());
  if (!found) {
    return { text: message };
  }
  const [, evaluated, budget, best, technique] = found;
  return {
    evaluated: Number(evaluated),
    budget: Number(budget),
    best: best?.replace(/^best /, "").trim(),
    technique: technique?.trim(),
    text: message,
  };
}

/** `3/12 candidates · best 1.84x · shared memory tiling`, for the notification. */
export function describe(report: JobReport): string {
  if (report.evaluated === undefined) {
    return report.text;
  }
  const parts = [`${report.evaluated}/${report.budget} candidates tried`];
  if (report.best) {
    parts.push(report.best.startsWith("not timed") ? report.best : `best ${report.best}`);
  }
  if (report.technique) {
    parts.push(`now: ${report.technique}`);
  }
  return parts.join(" · ");
}

export const JOB_TOKEN = /^regrapht-job-\d+$/;

/** The function a job's progress title names (`ReGraphT: smooth`). */
export function functionOfTitle(title: string): string | undefined {
  const found = /^ReGraphT: (.+)$/.exec(title.trim());
  return found ? found[1] : undefined;
}

export interface ProgressEvents {
  begin(title: string, message?: string): void;
  report(message: string | undefined, percentage: number | undefined): void;
  end(message?: string): void;
}

export interface Waiter {
  function: string;
  /** Called with the job's token once the server's progress for this command begins. */
  attach(token: string): ProgressEvents;
}

/**
 * Matches the server's work-done progress to the `regrapht.optimize` calls waiting for it.
 *
 * The server makes the token (`regrapht-job-N`) itself, after the command has started; its
 * begin title names the function. A call takes the first progress for its function, in the
 * order the calls were made (the server refuses a second job on a function that is busy).
 */
export class JobTracker {
  private readonly waiting: Waiter[] = [];
  private readonly live = new Map<string, ProgressEvents>();

  /** `orphan` shows a job no call waits for (a re-run the server started itself). */
  constructor(private readonly orphan?: (token: string, fn: string | undefined) => ProgressEvents) {}

  wait(waiter: Waiter): () => void {
    this.waiting.push(waiter);
    return () => {
      const at = this.waiting.indexOf(waiter);
      if (at >= 0) {
        this.waiting.splice(at, 1);
      }
    };
  }

  /** True when the progress belongs to a job (it is then not shown by the default UI). */
  handle(
    token: string,
    value: { kind: string; title?: string; message?: string; percentage?: number },
  ): boolean {
    if (!JOB_TOKEN.test(token)) {
      return false;
    }
    if (value.kind === "begin") {
      const name = functionOfTitle(value.title ?? "");
      const at = this.waiting.findIndex((w) => w.function === name);
      const events =
        at >= 0 ? this.waiting.splice(at, 1)[0].attach(token) : this.orphan?.(token, name);
      if (events) {
        this.live.set(token, events);
        events.begin(value.title ?? "", value.message);
      }
      return true;
    }
    const events = this.live.get(token);
    if (value.kind === "report") {
      events?.report(value.message, value.percentage);
    } else if (value.kind === "end") {
      this.live.delete(token);
      events?.end(value.message);
    }
    return true;
  }

  get running(): string[] {
    return [...this.live.keys()];
  }
}
