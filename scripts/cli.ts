// `npm run memory -- <command>`: operations from a terminal, against whichever database the
// environment selects (embedded PGlite by default, DATABASE_URL for a server).
import { parseArgs } from "node:util";
import { runCli } from "~/cli/main";

// A benchmark takes its own options: they pass through unparsed.
const raw = process.argv.slice(2);
if (raw[0] === "bench") {
  process.exitCode = await runCli(raw, {});
} else {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      admin: { type: "boolean", default: false },
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
    },
  });
  process.exitCode = await runCli(positionals, values);
}
