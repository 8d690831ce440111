"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";

/** How often an open dashboard tab renews its session (next-auth's session route re-issues the cookie). */
const RENEW_EVERY_MS = 10 * 60_000;

/**
 * Sliding sessions for open tabs: server components cannot set cookies, so the session cookie (and its
 * server-side record) is renewed by reading next-auth's /api/auth/session now and then while the tab is
 * in use. A session that was ended meanwhile (signed out elsewhere, password reset, removed) reads as
 * empty: the tab goes to sign-in instead of failing call by call.
 */
export function SessionKeepAlive() {
  const router = useRouter();
  useEffect(() => {
    let last = Date.now();
    const renew = async () => {
      if (document.visibilityState !== "visible" || Date.now() - last < RENEW_EVERY_MS) return;
      last = Date.now();
      const response = await fetch("/api/auth/session", { cache: "no-store" }).catch(() => null);
      if (!response?.ok) return;
      const session = (await response.json().catch(() => null)) as { user?: unknown } | null;
      if (session && !session.user) router.push("/sign-in");
    };
    const timer = setInterval(() => void renew(), 60_000);
    const onFocus = () => void renew();
    window.addEventListener("focus", onFocus);
    document.addEventListener("visibilitychange", onFocus);
    return () => {
      clearInterval(timer);
      window.removeEventListener("focus", onFocus);
      document.removeEventListener("visibilitychange", onFocus);
    };
  }, [router]);
  return null;
}
