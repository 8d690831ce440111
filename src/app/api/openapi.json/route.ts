import { openApiJson } from "~/server/tools/openapi";

/** The agent endpoint's OpenAPI document under `next dev` (the production server answers it in the agent listener). */
export const dynamic = "force-dynamic";

export function GET() {
  return new Response(openApiJson(), { headers: { "content-type": "application/json", "cache-control": "no-cache" } });
}
