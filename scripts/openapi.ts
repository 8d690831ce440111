// `npm run openapi`: rewrites docs/openapi.json from the tools' zod schemas (what /api/openapi.json serves).
import { writeFileSync } from "node:fs";
import path from "node:path";
import { openApiJson } from "~/server/tools/openapi";

const target = path.resolve(import.meta.dirname, "../docs/openapi.json");
writeFileSync(target, openApiJson());
console.log(`wrote ${path.relative(process.cwd(), target)}`);
