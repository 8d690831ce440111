import { QueryClient } from "@tanstack/react-query";

/** Dashboard data is server-rendered first; client queries refetch on focus only when stale. */
export function makeQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 30_000, retry: 1, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}
