// `npm run memory -- <command>`: operations from a terminal, against whichever database the
// environment selects (embedded PGlite by default, DATABASE_URL for a server).
import { parseArgs } from "node:util";
import { runCli, type CliOptions } from "~/cli/main";

const OPTIONS = {
  admin: { type: "boolean", default: false },
  member: { type: "boolean", default: false },
  password: { type: "string" },
  name: { type: "string" },
  tenant: { type: "string" },
  user: { type: "string" },
  scopes: { type: "string" },
  permissions: { type: "string" },
  "expires-days": { type: "string" },
  yes: { type: "boolean", default: false },
  out: { type: "string" },
  statuses: { type: "string" },
  evidence: { type: "boolean", default: false },
  as: { type: "string" },
  "dry-run": { type: "boolean", default: false },
  "on-conflict": { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

const raw = process.argv.slice(2);
if (raw[0] === "bench") {
  // A benchmark takes its own options: they pass through unparsed.
  process.exitCode = await runCli(raw, {});
} else {
  let parsed: { positionals: string[]; values: CliOptions };
  let failed = false;
  try {
    parsed = parseArgs({ allowPositionals: true, options: OPTIONS });
  } catch (error) {
    // An unknown or misspelt option: one line and the usage, not a stack trace.
    console.error(`${error instanceof Error ? error.message : String(error)}\n`);
    parsed = { positionals: [], values: { help: true } };
    failed = true;
  }
  const code = await runCli(parsed.positionals, parsed.values);
  process.exitCode = failed ? 1 : code;
}
