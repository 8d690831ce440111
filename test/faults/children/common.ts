/**
 * Shared by the child processes the fault tests spawn (`node --import tsx <file> '<json args>'`).
 * A child reports progress as one JSON object per stdout line; the parent kills it with SIGKILL.
 */
import { openDatabase, type DatabaseHandle } from "~/db/client";
import { registerTreeSubscribers } from "~/server/tree";

registerTreeSubscribers();

export type ChildTarget = {
  url?: string;
  dataDir?: string;
  migrationsFolder?: string;
  migrate?: boolean;
  poolMax?: number;
};

export function childArgs<T>(): T {
  const raw = process.argv[2];
  if (!raw) throw new Error("usage: node --import tsx <child.ts> '<json args>'");
  return JSON.parse(raw) as T;
}

/** One progress line for the parent. */
export function emit(event: string, data: Record<string, unknown> = {}) {
  process.stdout.write(`${JSON.stringify({ event, at: Date.now(), ...data })}\n`);
}

export function openTarget(target: ChildTarget): Promise<DatabaseHandle> {
  if (target.url)
    return openDatabase({
      url: target.url,
      poolMax: target.poolMax ?? 4,
      migrate: target.migrate ?? false,
      migrationsFolder: target.migrationsFolder,
    });
  if (!target.dataDir) throw new Error("child needs url or dataDir");
  return openDatabase({
    dataDir: target.dataDir,
    migrate: target.migrate ?? false,
    migrationsFolder: target.migrationsFolder,
  });
}

/** Runs `main`; any failure is reported and exits non-zero (the parent then fails with the reason). */
export function runChild(main: () => Promise<void>) {
  main().catch((error: unknown) => {
    emit("error", { message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    process.exit(1);
  });
}
