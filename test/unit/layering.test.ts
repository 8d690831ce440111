import fs from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

/**
 * The layering rules of docs/architecture.md: the memory core and the memory tree are entered through
 * their front doors, the core never imports the tree, and infrastructure never imports the domain.
 * ESLint enforces them (eslint.config.mjs); this file checks that it does, and reads the tree itself.
 */
const root = path.resolve(import.meta.dirname, "../..");

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(rel);
    return /\.(ts|tsx)$/.test(entry.name) ? [rel] : [];
  });
}

/** Every module specifier a file imports or re-exports, as written. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(root, file), "utf8");
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?from\s*["']([^"']+)["']/g)].map((m) => m[1]!);
}

/** A specifier resolved to a repository path (alias and relative forms), or null for packages. */
function resolved(file: string, spec: string): string | null {
  if (spec.startsWith("~/")) return path.join("src", spec.slice(2));
  if (spec.startsWith(".")) return path.join(path.dirname(file), spec);
  return null;
}

const within = (p: string | null, dir: string) => p !== null && (p === dir || p.startsWith(`${dir}${path.sep}`));

describe("layering", () => {
  it("the memory core imports nothing from the memory tree", () => {
    const offending = sourceFiles("src/server/memory").flatMap((file) =>
      importsOf(file)
        .filter((spec) => within(resolved(file, spec), "src/server/tree"))
        .map((spec) => `${file} → ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  it("infrastructure (database layer, jobs, providers, text) imports neither the core nor the tree", () => {
    const infrastructure = ["src/db", "src/server/jobs", "src/server/providers", "src/server/text"];
    const offending = infrastructure.flatMap((dir) =>
      sourceFiles(dir).flatMap((file) =>
        importsOf(file)
          .filter(
            (spec) =>
              within(resolved(file, spec), "src/server/memory") || within(resolved(file, spec), "src/server/tree"),
          )
          .map((spec) => `${file} → ${spec}`),
      ),
    );
    expect(offending).toEqual([]);
  });

  it("the store holds the SQL and calls no service: it imports the database, kinds, scopes and text, never a service room", () => {
    const services = ["write", "forget", "retrieval", "evidence", "embeddings"].map(
      (room) => `src/server/memory/${room}`,
    );
    const offending = sourceFiles("src/server/memory/store").flatMap((file) =>
      importsOf(file)
        .filter((spec) => services.some((room) => within(resolved(file, spec), room)))
        .map((spec) => `${file} → ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  it("code outside the core and the tree enters them through their front doors, by alias or relative path", () => {
    const deepInto = (file: string, spec: string, area: string) =>
      resolved(file, spec)?.startsWith(`${area}${path.sep}`) ?? false;
    const offending = sourceFiles("src").flatMap((file) =>
      importsOf(file)
        .filter(
          (spec) =>
            (!within(file, "src/server/memory") && deepInto(file, spec, "src/server/memory")) ||
            (!within(file, "src/server/tree") &&
              !within(file, "src/server/memory") &&
              deepInto(file, spec, "src/server/tree")),
        )
        .map((spec) => `${file} → ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  it("npm run lint refuses deep imports into the core or the tree, the core importing the tree, and infrastructure importing the domain", async () => {
    const eslint = new ESLint({ cwd: root });
    const cases = [
      {
        filePath: "src/server/dashboard/probe.ts",
        code: 'import { memoryWrite } from "~/server/memory/write/write";\nexport const probe = memoryWrite;\n',
      },
      {
        filePath: "src/server/memory/probe.ts",
        code: 'import { registerTreeSubscribers } from "~/server/tree";\nexport const probe = registerTreeSubscribers;\n',
      },
      {
        filePath: "src/server/jobs/probe.ts",
        code: 'import { memoryWrite } from "~/server/memory";\nexport const probe = memoryWrite;\n',
      },
      {
        filePath: "src/server/dashboard/probe.ts",
        code: 'import { memoryWrite } from "../memory/write/write";\nexport const probe = memoryWrite;\n',
      },
      {
        filePath: "src/server/tree/probe.ts",
        code: 'import { memoryWrite } from "~/server/memory/write/write";\nexport const probe = memoryWrite;\n',
      },
      {
        filePath: "src/server/memory/forget/probe.ts",
        code: 'import { HOTNESS } from "../../tree/hotness";\nexport const probe = HOTNESS;\n',
      },
      {
        filePath: "src/server/probe.ts",
        code: 'import { memoryWrite } from "./memory/write/write";\nexport const probe = memoryWrite;\n',
      },
      {
        filePath: "src/probe.ts",
        code: 'import { memoryWrite } from "./server/memory/write/write";\nexport const probe = memoryWrite;\n',
      },
    ];
    for (const { filePath, code } of cases) {
      const [result] = await eslint.lintText(code, { filePath: path.join(root, filePath) });
      expect(
        result?.messages.map((m) => m.ruleId),
        filePath,
      ).toContain("no-restricted-imports");
    }
    // The front door itself is fine.
    const [allowed] = await eslint.lintText(
      'import { memoryWrite } from "~/server/memory";\nexport const probe = memoryWrite;\n',
      { filePath: path.join(root, "src/server/dashboard/probe.ts") },
    );
    expect(allowed?.messages.filter((m) => m.ruleId === "no-restricted-imports")).toEqual([]);
    // A schema file that happens to be named memory.ts is not the memory core.
    const [schema] = await eslint.lintText(
      'import { memoryNodes } from "./memory";\nexport const probe = memoryNodes;\n',
      { filePath: path.join(root, "src/db/schema/probe.ts") },
    );
    expect(schema?.messages.filter((m) => m.ruleId === "no-restricted-imports")).toEqual([]);
  }, 60_000);
});
