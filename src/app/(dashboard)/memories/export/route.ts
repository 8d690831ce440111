import { CARD_STATUSES, type CardStatus } from "~/db/schema";
import { streamPages } from "~/trpc/download";
import { serverApi } from "~/trpc/server";

export const dynamic = "force-dynamic";

/** GET /memories/export?scope=…&status=…&evidence=1: the cards as JSONL, one card per line (memory-card/v1). */
export async function GET(request: Request) {
  const url = new URL(request.url);
  const scopes = url.searchParams.getAll("scope").filter(Boolean);
  const statuses = url.searchParams
    .getAll("status")
    .filter((s): s is CardStatus => (CARD_STATUSES as readonly string[]).includes(s));
  const includeEvidence = url.searchParams.get("evidence") === "1";
  const input = {
    scopes: scopes.length ? scopes : undefined,
    statuses: statuses.length ? statuses : undefined,
    includeEvidence,
    limit: 500,
  };
  const api = await serverApi();
  const stamp = new Date().toISOString().slice(0, 10);
  return streamPages({
    filename: `memories-${stamp}.jsonl`,
    contentType: "application/x-ndjson; charset=utf-8",
    firstPage: () => api.memory.exportPage(input),
    nextPage: (page) => (page.nextCursor ? api.memory.exportPage({ ...input, cursor: page.nextCursor }) : null),
    lines: (page) => page.cards.map((card) => `${JSON.stringify(card)}\n`),
  });
}
