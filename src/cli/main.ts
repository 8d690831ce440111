import { spawnSync } from "node:child_process";
import { getDatabase, type DatabaseHandle } from "~/db/client";
import { flushBufferedWrites } from "~/db/buffered-writes";
import { registerTreeSubscribers } from "~/server/tree";
import { keysCreate, keysList, keysRevoke, usersAdd, usersList } from "./account-commands";
import { firstTenantId, out, type CliCommand, type CliOptions } from "./command";
import { prune, reindexText, stats } from "./maintenance-commands";
import { exportJsonl, importJsonl } from "./transfer-commands";
import { clearTenantMemory, reembedTenant, runWorkerFromCli, treeSearch, treeTopics } from "./tree-commands";

export type { CliOptions };

const HELP = `Usage: npm run memory -- <command> [options]

  users add <email> [--admin|--member] [--password <pw>] [--name <name>] [--tenant <id>]
                     Create a person (a generated password is printed once unless --password), or change an
                     existing person's role (--admin / --member; never the only admin's) or password (--password).
  users list         People and their roles.
  keys create --user <email> [--name <n>] [--scopes a,b] [--permissions memory:read,memory:write] [--expires-days N]
                     Create an API key for an agent; prints the secret once.
  keys list          Keys with id, prefix, name, state and last use (every organisation unless --tenant).
  keys revoke <id>   Revoke a key (effective on the next request; audited like the dashboard's).
  stats              Totals per organisation, memory tree and job queue, and database health.
  search <query>     Search the memory tree (chunks of captured conversations), Chinese or English.
  topics             Topics by hotness, with their summaries.
  export [--scopes a,b] [--statuses active,deleted] [--evidence] [--out <file>]
                     Cards as JSONL (the dashboard's format; every scope unless --scopes), to stdout or a file.
  import <file> [--dry-run] [--on-conflict skip|supersede] [--as <email>]
                     JSONL cards through the normal write rules, as that person (default: the first admin).
                     A dry run writes nothing and reports what would happen; exits 1 if a line was rejected.
  clear [--yes]      Erase an organisation's memory (asks first unless --yes). People and keys stay.
  worker             Run a background job worker until Ctrl+C (several may run at once).
  reembed            After changing the embedding model: embed every current card for it.
  reindex-text       After upgrading to a release that changes how text is indexed (traditional Chinese folded
                     to simplified, hyphenated words whole, Chinese numerals as digits): rebuild the search
                     text of rows stored before.
  prune              Delete query log rows, idempotency replies and finished jobs past their retention
                     (MEMORY_*_RETENTION_DAYS; the server also does this every 15 minutes).
  bench <recall|load|cpu|soak|hot-path> [options]
                     Run a benchmark (bench/README.md); e.g. bench recall --help.
  (--tenant <id> picks the organisation; default: the first one.)

Embedded mode: stop the server first (only one process may open ./data), or set DATABASE_URL.`;

const BENCHMARKS = ["recall", "load", "cpu", "soak", "hot-path"] as const;

/** `bench <name> …`: the npm script bench:<name> with the rest of the arguments, its exit code returned. */
function runBench(args: string[]): number {
  const [name, ...rest] = args;
  if (!name || !(BENCHMARKS as readonly string[]).includes(name)) {
    console.error(`Name a benchmark: ${BENCHMARKS.join(", ")} (bench/README.md says what each measures).`);
    return 1;
  }
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  return spawnSync(npm, ["run", "--silent", `bench:${name}`, "--", ...rest], { stdio: "inherit" }).status ?? 1;
}

/** `search <query>`: the memory tree's chunks. */
const search: CliCommand = async ({ db, args, options }) => {
  const query = args.slice(1).join(" ").trim();
  if (!query) throw new Error("Give a query: search 预算");
  await treeSearch(db, await firstTenantId(db, options.tenant), query);
  return 0;
};

/** `topics`: by hotness. */
const topics: CliCommand = async ({ db, options }) => {
  await treeTopics(db, await firstTenantId(db, options.tenant));
  return 0;
};

/** `export`: cards as JSONL. */
const exportCards: CliCommand = async ({ db, options }) => {
  await exportJsonl(db, await firstTenantId(db, options.tenant), {
    scopes: options.scopes,
    statuses: options.statuses,
    evidence: options.evidence,
    outFile: options.out,
  });
  return 0;
};

/** `import <file>`: JSONL through the write rules. */
const importCards: CliCommand = async ({ db, args, options }) => {
  const file = args[1];
  if (!file) throw new Error("Give the file: import memories.jsonl [--dry-run]");
  const clean = await importJsonl(db, await firstTenantId(db, options.tenant), {
    file,
    as: options.as,
    dryRun: options["dry-run"],
    onConflict: options["on-conflict"],
  });
  return clean ? 0 : 1;
};

/** `clear`: an organisation's memory erased (asks first). */
const clear: CliCommand = async ({ db, options }) => {
  return (await clearTenantMemory(db, await firstTenantId(db, options.tenant), { yes: options.yes === true })) ? 0 : 1;
};

/** `worker`: background jobs until Ctrl+C. */
const worker: CliCommand = async ({ db }) => {
  await runWorkerFromCli(db);
  return 0;
};

/** `reembed`: every current card embedded for the configured model. */
const reembed: CliCommand = async ({ db, options }) => {
  await reembedTenant(db, await firstTenantId(db, options.tenant));
  return 0;
};

/** Every command by its words: one word (`stats`) or an area and an action (`keys create`). */
const COMMANDS = new Map<string, CliCommand>(
  Object.entries({
    "users add": usersAdd,
    "users list": usersList,
    "keys create": keysCreate,
    "keys list": keysList,
    "keys revoke": keysRevoke,
    stats: stats,
    search: search,
    topics: topics,
    export: exportCards,
    import: importCards,
    clear: clear,
    worker: worker,
    reembed: reembed,
    "reindex-text": reindexText,
    prune: prune,
  }),
);

/** `open` is the database to run against; the default is the one the environment selects (tests pass their own). */
export async function runCli(
  args: string[],
  options: CliOptions,
  open: () => Promise<DatabaseHandle> = getDatabase,
): Promise<number> {
  registerTreeSubscribers();
  const [area, action, target] = args;
  if (!area || options.help) {
    out(HELP);
    return area ? 0 : 1;
  }
  // Benchmarks bring their own databases: nothing of this install is opened (nor locked) for them.
  if (area === "bench") return runBench(args.slice(1));
  let handle: DatabaseHandle;
  try {
    handle = await open();
  } catch (error) {
    // e.g. embedded mode while the server holds ./data: the message says what to do.
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
  const { db } = handle;
  try {
    const run = COMMANDS.get(area) ?? COMMANDS.get(`${area} ${action ?? ""}`.trim());
    if (!run) {
      out(`Unknown command "${args.join(" ")}".\n`);
      out(HELP);
      return 1;
    }
    return await run({ db, handle, args, target, options });
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  } finally {
    await flushBufferedWrites();
    await handle.close();
  }
}
