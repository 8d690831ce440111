import NextAuth from "next-auth";
import { getDb } from "~/db/client";
import { authOptions } from "~/server/auth/config";
import { throttledSignInResponse } from "~/server/auth/sign-in-throttle";

export const dynamic = "force-dynamic";

const handler = NextAuth(authOptions);

/** Password sign-ins past their limit get 429 with Retry-After before next-auth runs. */
async function POST(req: Request, context: { params: Promise<{ nextauth: string[] }> }): Promise<Response> {
  const throttled = await throttledSignInResponse(req, await getDb());
  return (
    throttled ??
    (handler as (req: Request, context: { params: Promise<{ nextauth: string[] }> }) => Promise<Response>)(req, context)
  );
}

export { handler as GET, POST };
