import { describe as group, expect, it, vi } from "vitest";

import { describe, functionOfTitle, JobTracker, parseReport, type ProgressEvents } from "../../src/progress";

group("parseReport", () => {
  it("reads the server's report", () => {
    expect(parseReport("3/12 candidates, best 1.84x, shared memory tiling")).toEqual({
      evaluated: 3,
      budget: 12,
      best: "1.84x",
      technique: "shared memory tiling",
      text: "3/12 candidates, best 1.84x, shared memory tiling",
    });
  });

  it("reads a report without a GPU", () => {
    const report = parseReport("2/6 candidates, not timed (no GPU), parallelization");
    expect(report.evaluated).toBe(2);
    expect(report.best).toBe("not timed (no GPU)");
    expect(describe(report)).toBe("2/6 candidates tried · not timed (no GPU) · now: parallelization");
    expect(parseReport("1/6 candidates, best -, Sequential code").best).toBe("-");
  });

  it("keeps other messages as they are", () => {
    expect(parseReport("searching")).toEqual({ text: "searching" });
    expect(describe(parseReport("waiting for the running job"))).toBe("waiting for the running job");
  });
});

function recorder(): ProgressEvents & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    begin: (title, message) => seen.push(`begin ${title} ${message}`),
    report: (message, percentage) => seen.push(`report ${message} ${percentage}`),
    end: (message) => seen.push(`end ${message}`),
  };
}

group("JobTracker", () => {
  it("names the function from the title", () => {
    expect(functionOfTitle("ReGraphT: smooth")).toBe("smooth");
    expect(functionOfTitle("Indexing")).toBeUndefined();
  });

  it("gives a job's progress to the call waiting for its function", () => {
    const tracker = new JobTracker();
    const a = recorder();
    const b = recorder();
    const attachA = vi.fn(() => a);
    const attachB = vi.fn(() => b);
    tracker.wait({ function: "saxpy", attach: attachA });
    tracker.wait({ function: "smooth", attach: attachB });

    expect(tracker.handle("regrapht-job-1", { kind: "begin", title: "ReGraphT: smooth", message: "starting" })).toBe(true);
    expect(attachB).toHaveBeenCalledWith("regrapht-job-1");
    expect(attachA).not.toHaveBeenCalled();
    tracker.handle("regrapht-job-1", { kind: "report", message: "1/3 candidates", percentage: 33 });
    expect(tracker.running).toEqual(["regrapht-job-1"]);
    tracker.handle("regrapht-job-1", { kind: "end", message: "3 candidates (budget)" });
    expect(b.seen).toEqual([
      "begin ReGraphT: smooth starting",
      "report 1/3 candidates 33",
      "end 3 candidates (budget)",
    ]);
    expect(tracker.running).toEqual([]);
    expect(a.seen).toEqual([]);
  });

  it("leaves progress that is not a job to the default UI", () => {
    const tracker = new JobTracker();
    expect(tracker.handle("indexing-1", { kind: "begin", title: "Indexing" })).toBe(false);
  });

  it("shows a job no call waits for (a re-run) through the orphan handler", () => {
    const orphan = recorder();
    const tracker = new JobTracker(() => orphan);
    tracker.handle("regrapht-job-7", { kind: "begin", title: "ReGraphT: smooth", message: "starting" });
    tracker.handle("regrapht-job-7", { kind: "end" });
    expect(orphan.seen).toEqual(["begin ReGraphT: smooth starting", "end undefined"]);
  });

  it("forgets a call that stopped waiting", () => {
    const tracker = new JobTracker();
    const attach = vi.fn(() => recorder());
    const stop = tracker.wait({ function: "smooth", attach });
    stop();
    tracker.handle("regrapht-job-2", { kind: "begin", title: "ReGraphT: smooth" });
    expect(attach).not.toHaveBeenCalled();
  });
});
