"use client";

import { QueryClientProvider, type QueryClient } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useState } from "react";
import type { AppRouter } from "~/server/api/root";
import { TENANT_HEADER } from "~/server/api/tenant-header";
import { makeQueryClient } from "./query-client";

/** `useTRPC()` gives typed queryOptions / mutationOptions for every procedure. */
export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

let browserQueryClient: QueryClient | undefined;
function getQueryClient() {
  // The server renders each request with its own client; the browser keeps one for the tab.
  if (typeof window === "undefined") return makeQueryClient();
  browserQueryClient ??= makeQueryClient();
  return browserQueryClient;
}

/**
 * Same-origin tRPC over HTTP with the session cookie the browser sends, naming the organisation this
 * page was rendered for: the organisation cookie is the tab's choice only until another tab switches,
 * and an action clicked on a page of organisation A must not land in B's workspace or session of the
 * same id (the server checks the membership the header names).
 */
export function TRPCReactProvider({ tenantId, children }: { tenantId: string; children: React.ReactNode }) {
  const queryClient = getQueryClient();
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [httpBatchLink({ url: "/api/trpc", maxItems: 10, headers: { [TENANT_HEADER]: tenantId } })],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}

/** The human sentence of a failed call (the server already phrases it for people). */
export function errorMessage(error: unknown): string {
  if (error instanceof TRPCClientError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** The machine-readable reason the server attached, if any (`revision_mismatch`, `last_admin`, …). */
export function errorReason(error: unknown): string | undefined {
  if (error instanceof TRPCClientError) {
    const data = error.data as { reason?: string } | undefined;
    return data?.reason;
  }
  return undefined;
}
