import { describe, expect, it } from "vitest";

import { type ProbeResult } from "../../src/python";
import {
  baseCandidates,
  candidates,
  findServer,
  installTarget,
  managedPython,
  type Run,
  type SetupDeps,
  setUp,
  spawnRun,
} from "../../src/setup";

describe("candidates", () => {
  it("takes the setting alone when it is set", () => {
    expect(candidates({ setting: " /opt/venv/bin/python ", pythonExtension: "/usr/bin/python3.12", managed: "/m/python" })).toEqual([
      { command: "/opt/venv/bin/python", source: "setting" },
    ]);
  });

  it("then the Python extension's interpreter, the managed environment, python3 from PATH", () => {
    expect(candidates({ setting: "", pythonExtension: "/usr/bin/python3.12", managed: "/m/python" })).toEqual([
      { command: "/usr/bin/python3.12", source: "python-extension" },
      { command: "/m/python", source: "managed" },
      { command: "python3", source: "path" },
    ]);
    expect(candidates({})).toEqual([{ command: "python3", source: "path" }]);
  });
});

function probes(working: string[]): (command: string) => Promise<ProbeResult> {
  return async (command) =>
    working.includes(command) ? { ok: true, detail: "3.12.3" } : { ok: false, detail: "No module named 'regrapht_server'" };
}

describe("findServer", () => {
  it("uses the first interpreter that has the server", async () => {
    const found = await findServer({ pythonExtension: "/ws/.venv/bin/python", managed: "/m/python" }, probes(["/m/python", "python3"]));
    expect(found).toEqual({ ok: true, choice: { command: "/m/python", source: "managed" } });
  });

  it("offers the setup when nothing has it and the user named no interpreter", async () => {
    const found = await findServer({ managed: "/m/python" }, probes([]));
    expect(found.ok).toBe(false);
    if (!found.ok) {
      expect(found.offerSetup).toBe(true);
      expect(found.tried.map((t) => t.choice.source)).toEqual(["managed", "path"]);
    }
  });

  it("does not offer it over an explicit regrapht.python", async () => {
    const found = await findServer({ setting: "/opt/py", managed: "/m/python" }, probes(["/m/python"]));
    expect(found).toMatchObject({ ok: false, offerSetup: false, tried: [{ choice: { command: "/opt/py" } }] });
  });
});

describe("where the environment goes and what is installed", () => {
  it("puts the environment in the extension's storage", () => {
    expect(managedPython("/s", "linux")).toEqual({ venv: "/s/venv", python: "/s/venv/bin/python" });
    expect(managedPython("/s", "win32").python).toMatch(/Scripts[/\\]python\.exe$/);
  });

  it("makes it with the Python extension's interpreter first, then python3", () => {
    expect(baseCandidates("/usr/bin/python3.12", "linux")).toEqual(["/usr/bin/python3.12", "python3", "python3.13", "python3.12", "python3.11"]);
    expect(baseCandidates(undefined, "linux")[0]).toBe("python3");
  });

  it("installs the newest bundled wheel, else regrapht from the index", () => {
    expect(installTarget([])).toBe("regrapht");
    expect(installTarget(["/x/other-1.0-py3-none-any.whl"])).toBe("regrapht");
    expect(
      installTarget(["/x/regrapht-0.9.0-py3-none-any.whl", "/x/regrapht-0.10.0-py3-none-any.whl", "/x/regrapht-0.2-py3-none-any.whl"]),
    ).toBe("/x/regrapht-0.10.0-py3-none-any.whl");
  });
});

/** A scripted machine: which commands exist (and their Python version), what pip does. */
function machine(options: { versions: Record<string, string>; pipFails?: boolean; serverWorks?: boolean; hasVenv?: boolean }) {
  const calls: string[] = [];
  const steps: string[] = [];
  const log: string[] = [];
  let venvMade = options.hasVenv ?? false;
  const run: Run = async (command, args, { onLine }) => {
    calls.push([command, ...args].join(" "));
    if (args[0] === "-c") {
      const version = options.versions[command];
      return version ? { code: 0, output: `${version}\n` } : { code: null, output: "spawn ENOENT" };
    }
    if (args[1] === "venv") {
      venvMade = true;
      return { code: 0, output: "" };
    }
    onLine?.("Collecting regrapht");
    return options.pipFails ? { code: 1, output: "ERROR: No matching distribution found for regrapht" } : { code: 0, output: "Successfully installed regrapht" };
  };
  const deps: SetupDeps = {
    run,
    exists: () => venvMade,
    probe: async () => (options.serverWorks === false ? { ok: false, detail: "ImportError: x" } : { ok: true, detail: "3.12.3" }),
    step: (message) => steps.push(message),
    log: (line) => log.push(line),
  };
  return { calls, steps, log, deps };
}

describe("setUp", () => {
  it("makes a venv with a Python new enough, installs regrapht into it and checks it", async () => {
    const m = machine({ versions: { python3: "3.10", "python3.12": "3.12" } });
    const result = await setUp({ storage: "/s", wheels: [], platform: "linux" }, m.deps);
    expect(result).toEqual({ ok: true, python: "/s/venv/bin/python" });
    expect(m.calls).toEqual([
      expect.stringMatching(/^python3 -c /),
      expect.stringMatching(/^python3\.13 -c /),
      expect.stringMatching(/^python3\.12 -c /),
      "python3.12 -m venv /s/venv",
      "/s/venv/bin/python -m pip install --disable-pip-version-check --upgrade regrapht",
    ]);
    expect(m.steps.at(-1)).toBe("checking the server…");
    expect(m.log).toContain("Collecting regrapht"); // pip's output reaches the output channel
  });

  it("installs the bundled wheel into an existing environment without making another", async () => {
    const m = machine({ versions: {}, hasVenv: true });
    const wheel = "/ext/wheels/regrapht-0.1.0-py3-none-any.whl";
    expect(await setUp({ storage: "/s", wheels: [wheel], platform: "linux" }, m.deps)).toMatchObject({ ok: true });
    expect(m.calls).toEqual([`/s/venv/bin/python -m pip install --disable-pip-version-check --upgrade ${wheel}`]);
  });

  it("says which Pythons it found when none is new enough", async () => {
    const m = machine({ versions: { python3: "3.9" } });
    const result = await setUp({ storage: "/s", wheels: [], platform: "linux" }, m.deps);
    expect(result).toMatchObject({ ok: false, cancelled: false });
    expect(!result.ok && result.detail).toMatch(/needs Python 3\.11 or newer; found python3: 3\.9, python3\.13: not found/);
  });

  it("reports pip's error", async () => {
    const m = machine({ versions: { python3: "3.12" }, pipFails: true });
    const result = await setUp({ storage: "/s", wheels: [], platform: "linux" }, m.deps);
    expect(!result.ok && result.detail).toMatch(/pip install regrapht failed:\nERROR: No matching distribution/);
  });

  it("stops when cancelled, before the next step", async () => {
    const m = machine({ versions: { python3: "3.12" } });
    const cancel = new AbortController();
    const run = m.deps.run;
    m.deps.run = async (command, args, options) => {
      const result = await run(command, args, options);
      cancel.abort();
      return result;
    };
    const result = await setUp({ storage: "/s", wheels: [], platform: "linux", signal: cancel.signal }, m.deps);
    expect(result).toEqual({ ok: false, cancelled: true, detail: "cancelled" });
    expect(m.calls).toHaveLength(1);
  });
});

describe("spawnRun", () => {
  it("returns the exit code and passes the output on line by line", async () => {
    const lines: string[] = [];
    const result = await spawnRun("node", ["-e", "console.log('a'); console.error('b'); process.exit(3)"], { onLine: (l) => lines.push(l) });
    expect(result.code).toBe(3);
    expect(lines.sort()).toEqual(["a", "b"]);
  });

  it("gives no exit code for a missing command or a cancel", async () => {
    expect((await spawnRun("/nonexistent/python", [], {})).code).toBeNull();
    const cancel = new AbortController();
    const pending = spawnRun("node", ["-e", "setTimeout(() => {}, 60000)"], { signal: cancel.signal });
    cancel.abort();
    expect((await pending).code).toBeNull();
  });
});
