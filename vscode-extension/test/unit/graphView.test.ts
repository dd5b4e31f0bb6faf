import { describe, expect, it } from "vitest";

import { escapeHtml, layers, renderGraphHtml, type GraphSummary } from "../../src/graphView";

const summary: GraphSummary = {
  path: "/repo/graph_snapshots/regraph.msgpack",
  nodes: [
    { id: "sequential", name: "Sequential code" },
    { id: "parallelization", name: "Parallelization", description: "one thread per <item>" },
    { id: "shared_memory_tiling", name: "Shared memory tiling" },
    { id: "island", name: "Island" },
  ],
  edges: [
    { from: "sequential", to: "parallelization", examples: 12, bestSpeedup: 40.5 },
    { from: "parallelization", to: "shared_memory_tiling", examples: 3, bestSpeedup: null },
  ],
};

describe("the ReGraph picture", () => {
  it("lays techniques out by distance from sequential code", () => {
    const depth = layers(summary);
    expect(depth.get("sequential")).toBe(0);
    expect(depth.get("parallelization")).toBe(1);
    expect(depth.get("shared_memory_tiling")).toBe(2);
    expect(depth.get("island")).toBe(3);
  });

  it("draws every technique and transition, escaped, with counts", () => {
    const html = renderGraphHtml(summary, "vscode-resource:");
    expect(html).toContain("4 techniques, 2 transitions, 15 verified examples");
    expect(html.match(/class="node"/g)).toHaveLength(4);
    expect(html.match(/class="edge"/g)).toHaveLength(2);
    expect(html).toContain("one thread per &#60;item&#62;");
    expect(html).toContain("<td class=\"n\">40.50x</td>");
    expect(html).toContain("default-src 'none'");
    expect(html).not.toContain("<script");
  });

  it("escapes HTML", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;");
  });
});
