/**
 * The "ReGraphT Results" view and the code lens, over a `ResultStore` (results.ts holds
 * their text and is unit-tested; this file only hands it to VS Code).
 *
 * The lens goes above a function the last job ran on and says what it found
 * ("ReGraphT: 8.13x faster · 3 techniques"); clicking it shows that job in the view. A
 * lens on every eligible function ("Optimize to CUDA") would repeat the lightbulb's code
 * action on every loop of a file and move its lines; a measured result, where it applies,
 * is what a profiler or test runner shows there too.
 */
import * as vscode from "vscode";

import { definitionLine, type JobResult, jobRow, lensTitle, ResultStore, type Row } from "./results";

export const VIEW = "regrapht.results";
export const SHOW_RESULTS = "regrapht.showResults";
const SAVED = "regrapht.results";

export class ResultsView implements vscode.TreeDataProvider<Row>, vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<Row | undefined>();
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  readonly store: ResultStore;
  readonly tree: vscode.TreeView<Row>;
  private rows: Row[] = [];
  private readonly parents = new Map<string, Row>();

  constructor(private readonly state: vscode.Memento) {
    this.store = new ResultStore(20, state.get<JobResult[]>(SAVED, []));
    this.tree = vscode.window.createTreeView(VIEW, { treeDataProvider: this, showCollapseAll: true });
    this.refresh();
  }

  add(result: JobResult): void {
    this.store.add(result);
    this.refresh();
  }

  clear(): void {
    this.store.clear();
    this.refresh();
  }

  /** Shows the view, with the job (the newest if none is named) expanded and selected. */
  async show(job?: string): Promise<void> {
    await vscode.commands.executeCommand(`${VIEW}.focus`);
    const row = this.rows.find((r) => r.id === job) ?? this.rows[0];
    if (row) {
      await this.tree.reveal(row, { select: true, focus: false, expand: true });
    }
  }

  private refresh(): void {
    this.rows = this.store.all().map(jobRow);
    this.parents.clear();
    for (const row of this.rows) {
      for (const child of row.children) {
        this.parents.set(child.id, row);
      }
    }
    void this.state.update(SAVED, this.store.all());
    this.changed.fire(undefined);
    this.lensesChanged.fire();
  }

  getTreeItem(row: Row): vscode.TreeItem {
    const state = row.children.length
      ? row.id === this.rows[0]?.id
        ? vscode.TreeItemCollapsibleState.Expanded
        : vscode.TreeItemCollapsibleState.Collapsed
      : vscode.TreeItemCollapsibleState.None;
    const item = new vscode.TreeItem(row.label, state);
    item.id = row.id;
    item.description = row.description;
    item.tooltip = row.tooltip;
    item.accessibilityInformation = { label: `${row.label}, ${row.description}` };
    item.iconPath = new vscode.ThemeIcon(row.icon);
    return item;
  }

  getChildren(row?: Row): Row[] {
    return row ? row.children : this.rows;
  }

  getParent(row: Row): Row | undefined {
    return this.parents.get(row.id);
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const results = this.store.latestIn(document.uri.toString());
    if (!results.length) {
      return [];
    }
    const lines = document.getText().split(/\r\n|\r|\n/);
    return results.flatMap((result) => {
      const line = definitionLine(lines, result.function);
      if (line === undefined) {
        return [];
      }
      const command = { title: lensTitle(result), command: SHOW_RESULTS, arguments: [result.job] };
      return [new vscode.CodeLens(new vscode.Range(line, 0, line, 0), command)];
    });
  }
}
