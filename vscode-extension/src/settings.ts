/** The `regrapht` section as the server reads it. No `vscode` import (unit-tested). */

export const SECTION = "regrapht";

/** Settings the extension reads itself; the server ignores unknown keys anyway. */
export const EXTENSION_ONLY = new Set(["python"]);

/** The server's keys, from the manifest's contributed properties (`regrapht.budget` → `budget`). */
export function serverKeys(properties: Record<string, unknown>): string[] {
  return Object.keys(properties)
    .filter((key) => key.startsWith(`${SECTION}.`))
    .map((key) => key.slice(SECTION.length + 1))
    .filter((key) => !EXTENSION_ONLY.has(key));
}

/** `{key: value}` for the server; `undefined` becomes `null` ("not set"). */
export function serverSettings(keys: string[], get: (key: string) => unknown): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const key of keys) {
    const value = get(key);
    values[key] = value === undefined ? null : value;
  }
  return values;
}
