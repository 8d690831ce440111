import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

/**
 * An import path into `area` (memory, tree, or both) under src/server, by the ~/ alias or a relative
 * path; `deep`: a file inside it rather than its front door (then also `./memory/…` from src/server and
 * `./server/memory/…` from src, the only places a `./` path reaches it).
 */
const into = (area, deep) =>
  deep
    ? `^(~/server/|(\\.\\./)+(server/)?|\\./(server/)?)(${area})/.`
    : `^(~/server/|(\\.\\./)+(server/)?)(${area})(/|$)`;
const DEEP_INTO_MEMORY = {
  regex: into("memory", true),
  message: "Import the memory core from ~/server/memory (its index.ts), not from a file inside it.",
};
const DEEP_INTO_TREE = {
  regex: into("tree", true),
  message: "Import the memory tree from ~/server/tree (its index.ts), not from a file inside it.",
};
const TREE_FROM_MEMORY = {
  regex: into("tree", false),
  message:
    "The memory core does not import the memory tree: announce the event in memory/events.ts and let the tree subscribe.",
};
const DOMAIN_FROM_INFRASTRUCTURE = {
  regex: into("memory|tree", false),
  message:
    "Infrastructure does not import the domain (memory core, memory tree): pass what it needs in, or move the generic piece down.",
};
const restrict = (...patterns) => ({ "no-restricted-imports": ["error", { patterns }] });

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
  // The memory core and the memory tree are entered through their front doors (index.ts); tests and
  // benchmarks may reach in. Arrows run one way: the core announces what happened (memory/events.ts)
  // and the tree listens; infrastructure (the database layer, jobs, providers, text processing) knows
  // no domain. docs/architecture.md explains the layers. A file gets one no-restricted-imports (the
  // last block that matches it wins), so each block lists every rule for its files.
  {
    files: ["src/**/*.ts", "src/**/*.tsx"],
    ignores: ["src/server/memory/**", "src/server/tree/**"],
    rules: restrict(DEEP_INTO_MEMORY, DEEP_INTO_TREE),
  },
  { files: ["src/server/tree/**/*.ts"], rules: restrict(DEEP_INTO_MEMORY) },
  { files: ["src/server/memory/**/*.ts"], rules: restrict(TREE_FROM_MEMORY) },
  {
    files: ["src/db/**/*.ts", "src/server/jobs/**/*.ts", "src/server/providers/**/*.ts", "src/server/text/**/*.ts"],
    rules: restrict(DOMAIN_FROM_INFRASTRUCTURE),
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
