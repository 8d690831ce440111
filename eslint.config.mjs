import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: [
      ".next/**",
      "node_modules/**",
      "data/**",
      "drizzle/**",
      "e2e/artifacts/**",
      "bench/.cache/**",
      "next-env.d.ts",
      "packages/*/dist/**",
    ],
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      // The environment is read in one validated module (src/env.ts).
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "Read configuration from ~/env instead." },
      ],
    },
  },
  {
    // The memory core and the memory tree are entered through their front doors (index.ts); tests and
    // benchmarks may reach in. docs/architecture.md explains the layers.
    files: ["src/**/*.ts", "src/**/*.tsx"],
    ignores: ["src/server/memory/**", "src/server/tree/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["~/server/memory/*"],
              message: "Import the memory core from ~/server/memory (its index.ts), not from a file inside it.",
            },
            {
              group: ["~/server/tree/*"],
              message: "Import the memory tree from ~/server/tree (its index.ts), not from a file inside it.",
            },
          ],
        },
      ],
    },
  },
  {
    // Arrows run one way: the core announces what happened (memory/events.ts) and the tree listens;
    // infrastructure (the database layer, jobs, providers, text processing) knows no domain.
    files: ["src/server/memory/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["~/server/tree", "~/server/tree/*", "**/tree/*"],
              message:
                "The memory core does not import the memory tree: announce the event in memory/events.ts and let the tree subscribe.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["src/db/**/*.ts", "src/server/jobs/**/*.ts", "src/server/providers/**/*.ts", "src/server/text/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["~/server/memory", "~/server/memory/*", "~/server/tree", "~/server/tree/*"],
              message:
                "Infrastructure does not import the domain (memory core, memory tree): pass what it needs in, or move the generic piece down.",
            },
          ],
        },
      ],
    },
  },
  {
    files: [
      "src/env.ts",
      "src/instrumentation.ts",
      "scripts/**",
      "examples/**",
      "e2e/**",
      "test/**",
      "bench/**",
      "*.config.*",
      "vitest.*",
      "playwright.*",
    ],
    rules: { "no-restricted-properties": "off" },
  },
];

export default config;
