import { answerMetrics } from "~/server/http/metrics-endpoint";

export const dynamic = "force-dynamic";

// npm start answers /api/metrics in front of Next.js (the agent listener knows the caller's address);
// this route answers only when that listener is not in front (next dev, next start), with METRICS_TOKEN.
export async function GET(req: Request) {
  const answer = await answerMetrics({
    method: "GET",
    remoteAddress: null,
    authorization: req.headers.get("authorization"),
    forwardedFor: req.headers.get("x-forwarded-for"),
  });
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}
