import { readFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { serverKeys, serverSettings } from "../../src/settings";

const root = join(__dirname, "..", "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const source = readFileSync(join(root, "src", "extension.ts"), "utf8");
const properties = manifest.contributes.configuration.properties as Record<string, { default: unknown }>;

describe("the manifest", () => {
  it("activates on C, C++ and CUDA", () => {
    expect(manifest.activationEvents).toEqual(["onLanguage:c", "onLanguage:cpp", "onLanguage:cuda-cpp"]);
  });

  it("registers every command it contributes", () => {
    for (const { command } of manifest.contributes.commands) {
      expect(source).toContain(`registerCommand("${command}"`);
    }
  });

  it("has no hard dependency on the Python extension", () => {
    expect(manifest.extensionDependencies ?? []).toEqual([]);
  });

  it("sends the server every setting but regrapht.python, null when unset", () => {
    const keys = serverKeys(properties);
    expect(keys).not.toContain("python");
    expect(keys).toContain("allowUnverified");
    const values = serverSettings(keys, (key) => (key === "budget" ? 7 : undefined));
    expect(values.budget).toBe(7);
    expect(values.gpuIndex).toBeNull();
    expect(Object.keys(values)).toHaveLength(Object.keys(properties).length - 1);
  });

  it("describes every setting with its default", () => {
    for (const [key, entry] of Object.entries(properties)) {
      expect(entry, key).toHaveProperty("default");
      expect(entry, key).toHaveProperty("markdownDescription");
    }
  });
});

/** Finding "settings a cloned repository can set" of #15: what chooses an executable, a URL,
 * a file written or where code goes is never read from a workspace. */
describe("setting scopes and workspace trust", () => {
  const scoped = properties as Record<string, { scope?: string }>;
  const MACHINE_ONLY = ["python", "model", "allowRemote", "nvccPath", "snapshotPath", "learn"];

  it("keeps the security-relevant settings out of workspace settings", () => {
    for (const name of MACHINE_ONLY) {
      expect(["machine", "application"], name).toContain(scoped[`regrapht.${name}`].scope);
    }
  });

  it("names a scope for every setting, and no setting is resource-scoped or machine-overridable", () => {
    for (const [key, entry] of Object.entries(scoped)) {
      expect(["machine", "application", "window"], key).toContain(entry.scope);
    }
  });

  it("runs limited in untrusted workspaces, ignoring their values of every setting they can set", () => {
    const trust = manifest.capabilities.untrustedWorkspaces;
    expect(trust.supported).toBe("limited");
    expect(trust.description).toBeTruthy();
    const workspaceSettable = Object.entries(scoped)
      .filter(([, entry]) => entry.scope === "window")
      .map(([key]) => key);
    expect([...trust.restrictedConfigurations].sort()).toEqual(workspaceSettable.sort());
  });

  it("does not run in virtual workspaces (it compiles files on disk)", () => {
    expect(manifest.capabilities.virtualWorkspaces.supported).toBe(false);
  });
});

describe("the marketplace files", () => {
  it("names a 128x128 PNG icon that the package keeps", () => {
    const png = readFileSync(join(root, manifest.icon));
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([128, 128]);
    const kept = readFileSync(join(root, ".vscodeignore"), "utf8").split("\n");
    expect(kept).toContain("!media/*.png");
    for (const file of ["README.md", "CHANGELOG.md", "LICENSE"]) {
      expect(kept).toContain(`!${file}`);
      expect(readFileSync(join(root, file), "utf8").length, file).toBeGreaterThan(100);
    }
  });

  it("has a results view in the explorer, with its commands", () => {
    expect(manifest.contributes.views.explorer).toContainEqual(expect.objectContaining({ id: "regrapht.results", name: "ReGraphT Results" }));
    const commands = manifest.contributes.commands.map((c: { command: string }) => c.command);
    expect(commands).toEqual(expect.arrayContaining(["regrapht.showResults", "regrapht.clearResults", "regrapht.setUp"]));
  });
});
