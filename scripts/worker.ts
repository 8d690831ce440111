// `npm run worker`: a standalone job worker (several may run at once against one Postgres).
import { runCli } from "~/cli/main";

process.exitCode = await runCli(["worker"], {});
