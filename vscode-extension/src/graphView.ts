/**
 * The ReGraph as a picture: techniques in layers (by their shortest distance from
 * sequential code), transitions as arrows whose width grows with their example count, and
 * a table of the transitions. Pure HTML and SVG, no script: the webview needs none.
 */

export interface GraphNode {
  id: string;
  name: string;
  description?: string | null;
}

export interface GraphEdge {
  from: string;
  to: string;
  examples: number;
  bestSpeedup?: number | null;
}

export interface GraphSummary {
  path: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Layer of each node: BFS depth from `sequential` (unreachable nodes go last). */
export function layers(summary: GraphSummary): Map<string, number> {
  const depth = new Map<string, number>();
  const start = summary.nodes.find((n) => n.id === "sequential")?.id ?? summary.nodes[0]?.id;
  if (start === undefined) {
    return depth;
  }
  depth.set(start, 0);
  const queue = [start];
  while (queue.length) {
    const at = queue.shift() as string;
    for (const edge of summary.edges) {
      if (edge.from === at && !depth.has(edge.to)) {
        depth.set(edge.to, (depth.get(at) ?? 0) + 1);
        queue.push(edge.to);
      }
    }
  }
  const last = Math.max(0, ...depth.values()) + 1;
  for (const node of summary.nodes) {
    if (!depth.has(node.id)) {
      depth.set(node.id, last);
    }
  }
  return depth;
}

export function renderGraphHtml(summary: GraphSummary, cspSource = "'none'"): string {
  const depth = layers(summary);
  const columns = new Map<number, GraphNode[]>();
  for (const node of summary.nodes) {
    const d = depth.get(node.id) ?? 0;
    columns.set(d, [...(columns.get(d) ?? []), node]);
  }
  const colWidth = 230;
  const rowHeight = 46;
  const boxW = 190;
  const boxH = 30;
  const place = new Map<string, { x: number; y: number }>();
  let tallest = 0;
  for (const [d, nodes] of columns) {
    nodes.forEach((node, i) => place.set(node.id, { x: 20 + d * colWidth, y: 20 + i * rowHeight }));
    tallest = Math.max(tallest, nodes.length);
  }
  const width = 40 + Math.max(1, columns.size) * colWidth;
  const height = 40 + tallest * rowHeight;
  const most = Math.max(1, ...summary.edges.map((e) => e.examples));
  const arrows = summary.edges
    .map((e) => {
      const a = place.get(e.from);
      const b = place.get(e.to);
      if (!a || !b) {
        return "";
      }
      const stroke = (1 + (4 * Math.log(1 + e.examples)) / Math.log(1 + most)).toFixed(1);
      const x1 = a.x + boxW;
      const y1 = a.y + boxH / 2;
      const x2 = b.x;
      const y2 = b.y + boxH / 2;
      const title = `${e.from} → ${e.to}: ${e.examples} example(s)`;
      return (
        `<path d="M${x1},${y1} C${x1 + 30},${y1} ${x2 - 30},${y2} ${x2},${y2}" ` +
        `stroke-width="${stroke}" class="edge" marker-end="url(#arrow)"><title>${escapeHtml(title)}</title></path>`
      );
    })
    .join("\n");
  const boxes = summary.nodes
    .map((n) => {
      const p = place.get(n.id) as { x: number; y: number };
      const label = n.name.length > 28 ? `${n.name.slice(0, 27)}…` : n.name;
      return (
        `<g class="node"><title>${escapeHtml(n.description ?? n.name)}</title>` +
        `<rect x="${p.x}" y="${p.y}" width="${boxW}" height="${boxH}" rx="6"/>` +
        `<text x="${p.x + 8}" y="${p.y + 19}">${escapeHtml(label)}</text></g>`
      );
    })
    .join("\n");
  const names = new Map(summary.nodes.map((n) => [n.id, n.name]));
  const rows = [...summary.edges]
    .sort((x, y) => y.examples - x.examples)
    .map(
      (e) =>
        `<tr><td>${escapeHtml(names.get(e.from) ?? e.from)}</td><td>${escapeHtml(names.get(e.to) ?? e.to)}</td>` +
        `<td class="n">${e.examples}</td><td class="n">${e.bestSpeedup ? `${e.bestSpeedup.toFixed(2)}x` : "—"}</td></tr>`,
    )
    .join("\n");
  const examples = summary.edges.reduce((sum, e) => sum + e.examples, 0);
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${cspSource} 'unsafe-inline';">
<title>ReGraph</title>
<style>
body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); padding: 0 16px; }
.node rect { fill: var(--vscode-editorWidget-background, #252526); stroke: var(--vscode-focusBorder, #0078d4); }
.node text { fill: var(--vscode-foreground, #ccc); font-size: 12px; }
.edge { fill: none; stroke: var(--vscode-charts-blue, #3794ff); opacity: 0.55; }
#arrow path { fill: var(--vscode-charts-blue, #3794ff); }
table { border-collapse: collapse; margin: 12px 0 32px; }
td, th { padding: 2px 10px; border-bottom: 1px solid var(--vscode-panel-border, #444); text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.scroll { overflow-x: auto; }
</style></head><body>
<h1>The ReGraph</h1>
<p>${summary.nodes.length} techniques, ${summary.edges.length} transitions, ${examples} verified examples — <code>${escapeHtml(summary.path)}</code></p>
<div class="scroll"><svg role="img" aria-label="ReGraph techniques and transitions" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>
${arrows}
${boxes}
</svg></div>
<h2>Transitions</h2>
<table><thead><tr><th>from</th><th>to</th><th>examples</th><th>best speedup</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</body></html>`;
}
