import { describe, expect, it } from "vitest";

import { type CandidateRow, definitionLine, type JobResult, jobRow, lensTitle, ResultStore, timeText } from "../../src/results";

function candidate(index: number, status: string, speedup: number | null, feedback = ""): CandidateRow {
  const techniques = ["parallelization", "shared_memory_tiling", "loop_unrolling"];
  const names = ["Parallelization", "Shared-memory tiling", "Loop unrolling"];
  return {
    index,
    parent: index ? index - 1 : null,
    technique: techniques[index],
    techniqueName: names[index],
    producer: index ? "model:qwen2.5-coder-0.5b" : "rewriter:parallelization",
    phase: "expand",
    status,
    speedup,
    feedback,
  };
}

function result(overrides: Partial<JobResult> = {}): JobResult {
  return {
    job: "vscode-1",
    uri: "file:///w/smooth%20it.cpp",
    function: "smooth",
    state: "done",
    gpu: true,
    model: "qwen2.5-coder-0.5b",
    stopReason: "budget",
    offered: 2,
    verified: true,
    speedup: 8.125,
    techniques: ["parallelization", "shared_memory_tiling", "loop_unrolling"],
    summary: "",
    time: { total: 42.4, propose: 3.05, compile: 30.2, run: 8.1, search: 1.05 },
    candidates: [
      candidate(0, "verified", 2.5),
      candidate(1, "compile_error", null, "error: identifier 'tile' is undefined"),
      candidate(2, "verified", 8.125),
    ],
    ...overrides,
  };
}

describe("the code lens", () => {
  it("says how much faster, after how many techniques", () => {
    expect(lensTitle(result())).toBe("ReGraphT: 8.13x faster · 3 techniques");
  });

  it("never calls compiled-only code faster", () => {
    const compiled = result({ gpu: false, verified: false, speedup: null, techniques: ["parallelization"] });
    expect(lensTitle(compiled)).toBe("ReGraphT: compiled only, not timed · 1 technique");
  });

  it("says when nothing was found, and how much was tried", () => {
    const none = result({ offered: null, verified: false, speedup: null, techniques: [], summary: "2 compile_error" });
    expect(lensTitle(none)).toBe("ReGraphT: no faster version · 3 candidates");
    expect(lensTitle({ ...none, state: "cancelled" })).toBe("ReGraphT: cancelled, nothing offered · 3 candidates");
  });
});

describe("the results view", () => {
  it("lists a job with its time split and each candidate's technique, producer, status and reason", () => {
    const row = jobRow(result());
    expect(row.label).toBe("smooth");
    expect(row.description).toBe("8.13x faster · 3 candidates · smooth it.cpp");
    const [time, ...candidates] = row.children;
    expect(time.description).toBe("42 s: propose 3.0 s · compile 30 s · run 8.1 s · search 1.1 s");
    expect(candidates.map((c) => [c.label, c.description, c.icon])).toEqual([
      ["#0 Parallelization", "verified 2.50x · rewriter:parallelization", "pass"],
      ["#1 Shared-memory tiling", "compile error · model:qwen2.5-coder-0.5b", "error"],
      ["#2 Loop unrolling", "verified 8.13x · model:qwen2.5-coder-0.5b", "star-full"],
    ]);
    expect(candidates[1].tooltip).toContain("error: identifier 'tile' is undefined");
    expect(candidates[1].tooltip).toContain("applied to #0");
    expect(candidates[2].tooltip).toContain("offered as the edit");
    expect(new Set(row.children.map((c) => c.id)).size).toBe(row.children.length);
  });

  it("says why nothing was offered", () => {
    const none = jobRow(result({ offered: null, verified: false, speedup: null, summary: "1 compile_error; first problem: x" }));
    expect(none.tooltip).toContain("first problem: x");
    expect(none.icon).toBe("circle-slash");
  });

  it("writes short times with a decimal", () => {
    expect(timeText({ total: 0.5, propose: 0, compile: 0.25, run: 0, search: 0.25 })).toBe(
      "0.5 s: propose 0.0 s · compile 0.3 s · run 0.0 s · search 0.3 s",
    );
  });
});

describe("ResultStore", () => {
  it("keeps the newest first, a bounded number, and the latest per function", () => {
    const store = new ResultStore(3);
    store.add(result({ job: "a", function: "f" }));
    store.add(result({ job: "b", function: "g" }));
    store.add(result({ job: "c", function: "f" }));
    expect(store.latestIn("file:///w/smooth%20it.cpp").map((r) => r.job)).toEqual(["c", "b"]);
    store.add(result({ job: "d", uri: "file:///w/other.cu" }));
    expect(store.all().map((r) => r.job)).toEqual(["d", "c", "b"]);
    store.add(result({ job: "b", function: "g" }));
    expect(store.all().map((r) => r.job)).toEqual(["b", "d", "c"]);
  });
});

describe("definitionLine", () => {
  const source = [
    "// smooth(x) is below",
    "void smooth(int n, const float* x, float* y);",
    "int main() {",
    "  smooth(n, x, y);",
    "  float r = smooth(n, x, y);",
    "  return smooth2(n);",
    "}",
    "// ReGraphT CUDA version: smooth.regrapht.cu",
    "void smooth(int n, const float* x, float* y) {",
    "}",
    "__global__ void scale_kernel(int n, float* y) {",
    "static inline float*",
    "ptr(float* y) {",
  ];

  it("finds the definition, not a comment, a declaration or a call", () => {
    expect(definitionLine(source, "smooth")).toBe(8);
    expect(definitionLine(source, "scale_kernel")).toBe(10);
    expect(definitionLine(source, "ptr")).toBe(12);
    expect(definitionLine(source, "missing")).toBeUndefined();
  });
});
