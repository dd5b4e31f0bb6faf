import { describe, expect, it } from "vitest";

import { choosePython, missingServerMessage, probePython } from "../../src/python";

describe("choosePython", () => {
  it("takes the setting first", () => {
    expect(choosePython(" /opt/venv/bin/python ", "/usr/bin/python3.12")).toEqual({
      command: "/opt/venv/bin/python",
      source: "setting",
    });
  });

  it("then the Python extension's interpreter", () => {
    expect(choosePython("", "/usr/bin/python3.12")).toEqual({ command: "/usr/bin/python3.12", source: "python-extension" });
  });

  it("then python3 from PATH", () => {
    expect(choosePython(undefined, undefined)).toEqual({ command: "python3", source: "path" });
  });
});

describe("probePython", () => {
  it("fails for an interpreter that does not exist", async () => {
    const result = await probePython("/nonexistent/python");
    expect(result.ok).toBe(false);
    expect(result.detail).toMatch(/ENOENT/);
  });

  it("fails for a Python without the server", async () => {
    const result = await probePython("python3", 30_000);
    // This machine's bare python3 may or may not have it; either way the answer is clear.
    expect(typeof result.detail).toBe("string");
    if (!result.ok) {
      expect(result.detail).toMatch(/regrapht_server/);
    }
  });
});

describe("missingServerMessage", () => {
  it("names the interpreter, the install command and the setting", () => {
    const message = missingServerMessage({ command: "/venv/bin/python", source: "setting" }, "ModuleNotFoundError: No module named 'regrapht_server'");
    expect(message).toContain("regrapht.python (/venv/bin/python) does not have ReGraphT installed");
    expect(message).toContain("/venv/bin/python -m pip install");
    expect(message).toContain("set regrapht.python");
  });

  it("says when there is no Python at all", () => {
    const message = missingServerMessage({ command: "python3", source: "path" }, "spawn python3 ENOENT");
    expect(message).toContain("no Python at python3 from PATH");
  });
});
