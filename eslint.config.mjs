import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: [".next/**", "node_modules/**", "data/**", "drizzle/**", "e2e/artifacts/**", "bench/.cache/**", "next-env.d.ts", "packages/*/dist/**"],
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      // The environment is read in one validated module (src/env.ts).
      "no-restricted-properties": ["error", { object: "process", property: "env", message: "Read configuration from ~/env instead." }],
    },
  },
  {
    files: ["src/env.ts", "src/instrumentation.ts", "scripts/**", "examples/**", "e2e/**", "test/**", "bench/**", "*.config.*", "vitest.*", "playwright.*"],
    rules: { "no-restricted-properties": "off" },
  },
];

export default config;
