import { defineConfig } from "vitest/config";

// The real-editor test: code-server, chromium, the built .vsix and the real server.
export default defineConfig({
  test: {
    include: ["test/editor/**/*.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 180_000,
    fileParallelism: false,
    reporters: ["verbose"],
  },
});
