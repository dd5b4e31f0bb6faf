import { describe, expect, it } from "vitest";

import { missingServerMessage, probePython } from "../../src/python";

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
    expect(message).toContain("/venv/bin/python -m pip install regrapht");
    expect(message).toContain("set regrapht.python");
    expect(message).not.toContain("Set up ReGraphT"); // an explicit interpreter is the user's to fix
  });

  it("says when there is no Python at all", () => {
    const message = missingServerMessage({ command: "python3", source: "path" }, "spawn python3 ENOENT");
    expect(message).toContain("no Python at python3 from PATH");
    expect(message).toContain("Set up ReGraphT");
  });
});
