import "server-only";
import { headers } from "next/headers";
import { TRPCError } from "@trpc/server";
import { cache } from "react";
import { getDb } from "~/db/client";
import { createCaller } from "~/server/api/root";
import { getServerAuthSession } from "~/server/auth/config";

/**
 * tRPC for server components: the same procedures (and so the same authorization) the browser
 * calls, without an HTTP round trip. One caller per request.
 */
export const serverApi = cache(async () => {
  const requestHeaders = new Headers(await headers());
  return createCaller({ db: await getDb(), headers: requestHeaders, getSession: getServerAuthSession });
});

export type CallOutcome<T> = { ok: true; data: T } | { ok: false; code: string; message: string };

/**
 * Runs a procedure for a page and hands back its failure as data (FORBIDDEN, BAD_REQUEST…), so the page
 * can show an inline error state instead of the error boundary. Unexpected errors still throw.
 */
export async function attempt<T>(call: () => Promise<T>): Promise<CallOutcome<T>> {
  try {
    return { ok: true, data: await call() };
  } catch (error) {
    if (error instanceof TRPCError && error.code !== "INTERNAL_SERVER_ERROR")
      return { ok: false, code: error.code, message: error.message };
    throw error;
  }
}
