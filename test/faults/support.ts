import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { sql } from "drizzle-orm";
import { afterAll, describe, inject } from "vitest";
import { queryRows } from "~/db/raw";
import type { Database } from "~/db/types";
import type { ChildTarget } from "./children/common";

export { KEEPER_CONTENT, TEMPLATE_TENANT } from "./template";

export const ROOT = path.resolve(import.meta.dirname, "../..");
export const SERVER_URL = process.env.TEST_DATABASE_URL;

/**
 * Postgres fault suites: run when TEST_DATABASE_URL is set; in CI a missing URL makes them fail
 * (their setup throws) instead of silently skipping.
 */
export const describeServer = SERVER_URL || process.env.CI === "true" ? describe : describe.skip;

/** A private copy of the migrated PGlite template (see global-setup.ts); returns its data directory. */
export function copyPgliteTemplate(): string {
  const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "memory-fault-")), "pglite");
  fs.cpSync(inject("pgliteTemplate"), dataDir, { recursive: true });
  return dataDir;
}

export type ChildEvent = { event: string; at: number } & Record<string, unknown>;

const liveChildren = new Set<ChildProcess>();
// A test that fails before its kill must not leave its child running (and holding a data directory).
afterAll(() => {
  for (const child of liveChildren) child.kill("SIGKILL");
});

/** A child process (`node --import tsx test/faults/children/<script>`) reporting JSON lines on stdout. */
export class FaultChild {
  readonly events: ChildEvent[] = [];
  readonly proc: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private stderr = "";
  private listeners = new Set<() => void>();

  constructor(script: string, args: ChildTarget & Record<string, unknown>) {
    this.proc = spawn(
      process.execPath,
      ["--import", "tsx", path.join(ROOT, "test/faults/children", script), JSON.stringify(args)],
      {
        cwd: ROOT,
        env: { ...process.env, NODE_ENV: "test", LOG_LEVEL: "error", DATABASE_URL: "" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    readline.createInterface({ input: this.proc.stdout! }).on("line", (line) => {
      try {
        this.events.push(JSON.parse(line) as ChildEvent);
      } catch {
        this.events.push({ event: "log", at: Date.now(), line });
      }
      for (const listener of this.listeners) listener();
    });
    this.proc.stderr!.on("data", (chunk) => (this.stderr += String(chunk)));
    liveChildren.add(this.proc);
    this.exited = new Promise((resolve) =>
      this.proc.on("exit", (code, signal) => (liveChildren.delete(this.proc), resolve({ code, signal }))),
    );
    void this.exited.then(() => this.listeners.forEach((l) => l()));
  }

  get pid(): number {
    return this.proc.pid!;
  }

  named(event: string): ChildEvent[] {
    return this.events.filter((e) => e.event === event);
  }

  private describeFailure(): string {
    const error = this.named("error")[0];
    return `${error ? String(error.message) : ""}\n${this.stderr.slice(-4000)}`;
  }

  /** Resolves with the first event matching `predicate`; rejects if the child fails, exits or takes too long. */
  waitFor(predicate: (e: ChildEvent) => boolean, timeoutMs = 30_000): Promise<ChildEvent> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => finish(new Error(`child ${this.pid} timed out after ${timeoutMs} ms.${this.describeFailure()}`)),
        timeoutMs,
      );
      const finish = (error: Error | null, event?: ChildEvent) => {
        clearTimeout(timer);
        this.listeners.delete(check);
        if (error) reject(error);
        else resolve(event!);
      };
      const check = () => {
        const found = this.events.find(predicate);
        if (found) return finish(null, found);
        if (this.named("error").length > 0 || this.proc.exitCode !== null || this.proc.signalCode !== null) {
          finish(
            new Error(
              `child ${this.pid} ended (${this.proc.exitCode ?? this.proc.signalCode}) before the awaited event.${this.describeFailure()}`,
            ),
          );
        }
      };
      this.listeners.add(check);
      check();
    });
  }

  /** SIGKILL: no handler, no cleanup, no flush; the process is gone when this resolves. */
  async kill(): Promise<void> {
    this.proc.kill("SIGKILL");
    const { signal } = await this.exited;
    if (signal !== "SIGKILL")
      throw new Error(
        `child ${this.pid} exited with ${signal ?? "a code"} before it could be killed.${this.describeFailure()}`,
      );
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
export const randomBetween = (min: number, max: number) => min + Math.random() * (max - min);

export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function count(db: Database, query: ReturnType<typeof sql>): Promise<number> {
  const rows = await queryRows<{ n: number }>(db, query);
  return Number(rows[0]?.n ?? 0);
}

/** A copy of drizzle/ plus one extra migration made of `statements`; returns the folder and the new tag. */
export function migrationsWithExtra(name: string, statements: string[]): { folder: string; tag: string } {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "memory-fault-migrations-"));
  fs.cpSync(path.join(ROOT, "drizzle"), folder, { recursive: true });
  const journalPath = path.join(folder, "meta", "_journal.json");
  const journal = JSON.parse(fs.readFileSync(journalPath, "utf8")) as {
    entries: { idx: number; tag: string; when: number; version: string; breakpoints: boolean }[];
  };
  const idx = journal.entries.length;
  const tag = `${String(idx).padStart(4, "0")}_${name}`;
  journal.entries.push({ idx, tag, when: Date.now(), version: "7", breakpoints: true });
  fs.writeFileSync(journalPath, JSON.stringify(journal));
  fs.writeFileSync(path.join(folder, `${tag}.sql`), statements.join("\n--> statement-breakpoint\n"));
  return { folder, tag };
}

/** The same database URL with `application_name` set, so a test can find (or spare) that client's sessions. */
export function withApplicationName(url: string, name: string): string {
  const u = new URL(url);
  u.searchParams.set("application_name", name);
  return u.toString();
}
