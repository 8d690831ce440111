import { execFile } from "node:child_process";
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentServer, type AgentServer } from "../support/agent-server";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const packageDir = path.join(root, "packages/client");

/** The code block of the package README that follows `<!-- example: <name> … -->`. */
async function readmeExample(name: string): Promise<string> {
  const readme = await readFile(path.join(packageDir, "README.md"), "utf8");
  const match = new RegExp(`<!-- example: ${name}\\b[^>]*-->\\s*\`\`\`(?:js|ts)\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!match?.[1]) throw new Error(`packages/client/README.md has no example "${name}"`);
  return match[1];
}

/**
 * What a user of the published package gets: `npm pack`, installed from the tarball into an empty
 * folder with nothing else, and the README's example run against a started endpoint.
 */
describe("@agent-memory/client from its npm tarball", () => {
  let server: AgentServer;
  let work: string;
  let tarball: string;
  beforeAll(async () => {
    server = await startAgentServer();
    work = await mkdtemp(path.join(os.tmpdir(), "memory-client-pack-"));
    // prepack builds dist/ with tsc.
    const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", work], {
      cwd: packageDir,
      maxBuffer: 16 * 1024 * 1024,
    });
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf("["))) as { filename: string; files: { path: string }[] }[];
    tarball = path.join(work, packed!.filename);
  });
  afterAll(async () => {
    await server?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("packs the built ESM, its type definitions and the README, nothing else", async () => {
    const { stdout } = await run("tar", ["-tzf", tarball]);
    const files = stdout
      .trim()
      .split("\n")
      .map((f) => f.replace(/^package\//, ""))
      .sort();
    expect(files).toContain("dist/index.js");
    expect(files).toContain("dist/index.d.ts");
    for (const adapter of ["ai", "openai-agents", "langchain"])
      expect(files).toEqual(expect.arrayContaining([`dist/${adapter}.js`, `dist/${adapter}.d.ts`]));
    expect(files).toContain("README.md");
    expect(files).toContain("package.json");
    expect(files.filter((f) => !f.startsWith("dist/") && !["README.md", "package.json"].includes(f))).toEqual([]);
    const manifest = JSON.parse((await run("tar", ["-xzOf", tarball, "package/package.json"])).stdout) as {
      dependencies?: object;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    expect(manifest.dependencies ?? {}).toEqual({});
    // The frameworks are the user's own: optional peers, never installed with the client.
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual(["@langchain/core", "@openai/agents", "ai"]);
    expect(Object.values(manifest.peerDependenciesMeta).every((meta) => meta.optional === true)).toBe(true);
  });

  it("installs into an empty folder and runs the README's example against a started server", async () => {
    const app = path.join(work, "app");
    await run("mkdir", ["-p", app]);
    await writeFile(
      path.join(app, "package.json"),
      JSON.stringify({ name: "client-pack-check", private: true, type: "module" }),
    );
    await run("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball], { cwd: app });
    // Nothing but the package itself: it has no dependencies.
    expect((await readdir(path.join(app, "node_modules"))).filter((name) => !name.startsWith("."))).toEqual([
      "@agent-memory",
    ]);

    await writeFile(path.join(app, "example.mjs"), await readmeExample("quick-start"));
    const { stdout } = await run(process.execPath, ["example.mjs"], {
      cwd: app,
      env: { ...process.env, MEMORY_URL: server.baseUrl, MEMORY_KEY: server.secret },
    });
    expect(stdout).toMatch(/^saved mem_/);
    expect(stdout).toContain("allergic to peanuts");

    // The tarball's type definitions work for a TypeScript user (NodeNext resolution, strict).
    await writeFile(
      path.join(app, "check.ts"),
      [
        'import { createMemoryClient, MemoryApiError, type MemorySearchResult } from "@agent-memory/client";',
        'const memory = createMemoryClient({ baseUrl: "http://localhost:3000", apiKey: "mem_live_x", sessionId: "s" });',
        'export const found: Promise<MemorySearchResult> = memory.search({ kinds: ["food_avoidance"] });',
        "export const reason = (e: unknown) => (e instanceof MemoryApiError ? e.reason : undefined);",
        "// @ts-expect-error queryText is a string",
        "memory.search({ queryText: 42 });",
      ].join("\n"),
    );
    const tsc = path.join(root, "node_modules/typescript/bin/tsc");
    const compilerOptions = {
      noEmit: true,
      strict: true,
      module: "nodenext",
      moduleResolution: "nodenext",
      target: "es2022",
      lib: ["es2022", "dom"],
      types: [],
    };
    await writeFile(path.join(app, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["check.ts"] }));
    const checked = await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: app }).catch(
      (error: { stdout?: string }) => ({ stdout: `tsc failed: ${error.stdout}` }),
    );
    expect(checked.stdout).toBe("");
  });
});
