/**
 * Builds one migrated, cleanly closed PGlite data directory for the whole faults project; tests copy
 * it instead of paying for initdb + migrations (10–20 s in WASM) in every test. It holds one tenant,
 * TEMPLATE_TENANT, with one card (KEEPER_CONTENT), so a test can hand a copy straight to a child process. It is cached in the
 * OS temp folder under a hash of the migrations and the PGlite version, so a stale template is never used.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { openDatabase } from "~/db/client";
import { DEFAULT_MIGRATIONS_FOLDER, readMigrationFiles } from "~/db/migrate";
import { tenants } from "~/db/schema";
import { memoryWrite } from "~/server/memory/write/write";
import { agentContext } from "../support/memory";
import { KEEPER_CONTENT, TEMPLATE_TENANT } from "./template";

declare module "vitest" {
  export interface ProvidedContext {
    pgliteTemplate: string;
  }
}

function templateKey(): string {
  const hash = createHash("sha256");
  for (const m of readMigrationFiles(DEFAULT_MIGRATIONS_FOLDER)) hash.update(`${m.tag}:${m.hash}\n`);
  const pglite = JSON.parse(
    fs.readFileSync(path.resolve(import.meta.dirname, "../../node_modules/@electric-sql/pglite/package.json"), "utf8"),
  ) as { version: string };
  hash.update(`${pglite.version}\nseed:${TEMPLATE_TENANT}:${KEEPER_CONTENT}`);
  return hash.digest("hex").slice(0, 16);
}

export default async function setup(project: TestProject) {
  const template = path.join(os.tmpdir(), `memory-faults-pglite-${templateKey()}`);
  if (!fs.existsSync(path.join(template, "PG_VERSION"))) {
    // Build aside, then rename: a half-built template is never picked up.
    const building = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "memory-faults-build-")), "pglite");
    const handle = await openDatabase({ dataDir: building });
    await handle.db.insert(tenants).values({ id: TEMPLATE_TENANT, name: "Fault tests", slug: TEMPLATE_TENANT });
    const keeper = await memoryWrite(handle.db, agentContext(TEMPLATE_TENANT), {
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: "keeper",
          explicitUserIntent: true,
          node: { title: "Keeper", content: KEEPER_CONTENT },
        },
      ],
    });
    if (!keeper.done) throw new Error(`template seed failed: ${keeper.message}`);
    await handle.close();
    try {
      fs.renameSync(building, template);
    } catch {
      // another run won the race; its template is as good
    }
    fs.rmSync(path.dirname(building), { recursive: true, force: true });
  }
  project.provide("pgliteTemplate", template);
}
