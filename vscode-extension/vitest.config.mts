import { defineConfig } from "vitest/config";

// Unit tests: the parts of the extension that need no editor.
export default defineConfig({
  test: {
    include: ["test/unit/**/*.test.ts"],
  },
});
