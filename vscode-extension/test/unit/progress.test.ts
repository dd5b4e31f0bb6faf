import { describe as group, expect, it } from "vitest";

import { describe, isOver, type JobEvents, type JobProgress, JobTracker, percentDone } from "../../src/progress";

/** A payload as the server sends it (server/regrapht_server/progress.py, JobProgress.as_json). */
function payload(fields: Partial<JobProgress> = {}): JobProgress {
  return {
    job: "vscode-1",
    uri: "file:///w/saxpy.cpp",
    function: "saxpy",
    state: "running",
    evaluations: 0,
    budget: 12,
    bestSpeedup: null,
    technique: null,
    techniqueName: null,
    gpu: true,
    stopReason: null,
    confirming: false,
    ...fields,
  };
}

const tiling = { technique: "shared_memory_tiling", techniqueName: "Shared-memory tiling" };

group("describe", () => {
  it("says how far the search is and how good", () => {
    const report = payload({ evaluations: 3, bestSpeedup: 1.8367, ...tiling });
    expect(describe(report)).toBe("3/12 candidates tried · best 1.84x · now: Shared-memory tiling");
    expect(percentDone(report)).toBe(25);
    expect(describe(payload({ evaluations: 1, ...tiling }))).toBe("1/12 candidates tried · now: Shared-memory tiling");
  });

  it("says when candidates are not timed (no GPU)", () => {
    const report = payload({ gpu: false, evaluations: 2, budget: 6, technique: "parallelization", techniqueName: "Parallelization" });
    expect(describe(report)).toBe("2/6 candidates tried · not timed (no GPU) · now: Parallelization");
  });

  it("describes a job before its first candidate", () => {
    expect(describe(payload({ state: "queued", gpu: null }))).toBe("waiting for the running job");
    expect(describe(payload({ gpu: null }))).toBe("starting…");
    expect(describe(payload())).toBe("searching");
    expect(describe(payload({ gpu: false }))).toBe("searching (no GPU: compiled, not run)");
    expect(percentDone(payload())).toBeUndefined();
  });

  it("describes the end of a job", () => {
    expect(describe(payload({ state: "cancelling", evaluations: 2, ...tiling }))).toBe("cancelling…");
    expect(describe(payload({ state: "done", evaluations: 12, stopReason: "budget" }))).toBe("12 candidates (budget)");
    expect(describe(payload({ state: "cancelled", evaluations: 2, stopReason: "cancelled" }))).toBe("2 candidates (cancelled)");
    expect(describe(payload({ state: "failed" }))).toBe("failed");
    expect(["queued", "running", "cancelling"].map((s) => isOver(s as JobProgress["state"]))).toEqual([false, false, false]);
    expect(["done", "failed", "cancelled"].map((s) => isOver(s as JobProgress["state"]))).toEqual([true, true, true]);
  });

  it("says when the search is over and its best candidate is being confirmed", () => {
    const report = payload({ evaluations: 8, budget: 8, bestSpeedup: 2.5, confirming: true, ...tiling });
    expect(describe(report)).toBe("confirming the best candidate (2.50x) before it is offered");
  });

  it("shows the technique id when the payload has no name for it", () => {
    expect(describe(payload({ evaluations: 1, technique: "new_technique" }))).toBe("1/12 candidates tried · now: new_technique");
  });
});

function recorder(): JobEvents & { seen: string[] } {
  const seen: string[] = [];
  return { seen, update: (p) => seen.push(`${p.job} ${p.state} ${p.evaluations}`) };
}

group("JobTracker", () => {
  it("gives each payload to the job it names, until the job's last", () => {
    const tracker = new JobTracker();
    const a = recorder();
    const b = recorder();
    tracker.expect("vscode-a", a);
    tracker.expect("vscode-b", b);
    expect(tracker.owns("vscode-b")).toBe(true);
    tracker.handle(payload({ job: "vscode-b", state: "queued" }));
    tracker.handle(payload({ job: "vscode-a", evaluations: 1, ...tiling }));
    tracker.handle(payload({ job: "vscode-b", evaluations: 1, ...tiling }));
    tracker.handle(payload({ job: "vscode-b", state: "done", evaluations: 3, stopReason: "budget" }));
    expect(b.seen).toEqual(["vscode-b queued 0", "vscode-b running 1", "vscode-b done 3"]);
    expect(a.seen).toEqual(["vscode-a running 1"]);
    expect(tracker.owns("vscode-b")).toBe(false);
    tracker.handle(payload({ job: "vscode-b", evaluations: 4 })); // nothing after the last
    expect(b.seen).toHaveLength(3);
  });

  it("leaves tokens that are not jobs to the default UI", () => {
    expect(new JobTracker().owns("indexing-1")).toBe(false);
  });

  it("shows a job no call expects (a re-run the server started) through the orphan handler", () => {
    const orphan = recorder();
    const started: string[] = [];
    const tracker = new JobTracker((first) => {
      started.push(`${first.job} ${first.function}`);
      return orphan;
    });
    tracker.handle(payload({ job: "regrapht-job-7", state: "queued" }));
    expect(tracker.owns("regrapht-job-7")).toBe(true);
    tracker.handle(payload({ job: "regrapht-job-7", state: "cancelled", stopReason: "cancelled" }));
    expect(started).toEqual(["regrapht-job-7 saxpy"]);
    expect(orphan.seen).toEqual(["regrapht-job-7 queued 0", "regrapht-job-7 cancelled 0"]);
    tracker.handle(payload({ job: "regrapht-job-8", state: "failed" })); // over before it was shown
    expect(started).toHaveLength(1);
  });

  it("forgets a call that stopped expecting its job", () => {
    const tracker = new JobTracker();
    const events = recorder();
    const forget = tracker.expect("vscode-c", events);
    forget();
    tracker.handle(payload({ job: "vscode-c" }));
    expect(events.seen).toEqual([]);
    expect(tracker.owns("vscode-c")).toBe(false);
  });
});
