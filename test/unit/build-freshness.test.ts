import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildIsStale, recordBuildSources } from "../../scripts/build-freshness.mjs";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

function checkout() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "memory-build-"));
  roots.push(root);
  fs.mkdirSync(path.join(root, "src"));
  fs.mkdirSync(path.join(root, "drizzle"));
  fs.writeFileSync(path.join(root, "src", "env.ts"), "export const a = 1;\n");
  fs.writeFileSync(path.join(root, "drizzle", "0000_init.sql"), "create table t (id int);\n");
  return root;
}
const build = (root: string) => {
  fs.mkdirSync(path.join(root, ".next"), { recursive: true });
  fs.writeFileSync(path.join(root, ".next", "BUILD_ID"), "build-1");
  recordBuildSources(root);
};
const old = new Date("2020-01-01T00:00:00Z");

describe("whether npm start must build", () => {
  it("builds when there is no build, and not again for the same sources", () => {
    const root = checkout();
    expect(buildIsStale(root)).toBe(true);
    build(root);
    expect(buildIsStale(root)).toBe(false);
  });

  it("builds again for a release unpacked with its original, older file times (an upgrade)", () => {
    const root = checkout();
    build(root);
    // A new migration and a changed source, both dated before the local build.
    fs.writeFileSync(path.join(root, "drizzle", "0001_next.sql"), "alter table t add column b int;\n");
    fs.writeFileSync(path.join(root, "src", "env.ts"), "export const a = 2;\n");
    for (const file of ["drizzle/0001_next.sql", "src/env.ts"]) fs.utimesSync(path.join(root, file), old, old);
    expect(buildIsStale(root)).toBe(true);
  });

  it("falls back to file times for a build that recorded nothing (next build alone)", () => {
    const root = checkout();
    fs.mkdirSync(path.join(root, ".next"));
    fs.writeFileSync(path.join(root, ".next", "BUILD_ID"), "build-1");
    for (const file of ["src/env.ts", "drizzle/0000_init.sql", "src", "drizzle"])
      fs.utimesSync(path.join(root, file), old, old);
    expect(buildIsStale(root)).toBe(false);
    fs.writeFileSync(path.join(root, "src", "env.ts"), "export const a = 3;\n");
    expect(buildIsStale(root)).toBe(true);
  });
});
