"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { errorMessage } from "~/trpc/react";

/**
 * Runs a mutation from an admin page, keeps its error for display, and re-renders the server
 * components afterwards so lists show the new state.
 */
export function useAction() {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  async function run<T>(action: () => Promise<T>): Promise<T | undefined> {
    setError(null);
    setPending(true);
    try {
      const result = await action();
      router.refresh();
      return result;
    } catch (e) {
      setError(errorMessage(e));
      return undefined;
    } finally {
      setPending(false);
    }
  }
  return { run, error, pending, setError };
}
