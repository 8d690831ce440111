import { createRequire } from "node:module";
import path from "node:path";
import type { NextAuthOptions, Session } from "next-auth";

/**
 * next-auth's own request handler (the core its Next.js route wraps; not in the package's exports, so
 * loaded by path) with a cookie jar: a browser signing in, reading its session and signing out, with
 * the real JWT cookie, CSRF token and callbacks.
 */
type InternalResponse = {
  status?: number;
  body?: unknown;
  redirect?: string;
  cookies?: { name: string; value: string }[];
};
const { AuthHandler } = createRequire(import.meta.url)(path.resolve("node_modules/next-auth/core/index.js")) as {
  AuthHandler: (params: { req: Request; options: NextAuthOptions }) => Promise<InternalResponse>;
};

export function nextAuthBrowser(
  options: NextAuthOptions,
  origin = "http://localhost:3000",
  extraHeaders: Record<string, string> = {},
) {
  const jar = new Map<string, string>();
  const send = async (action: string, body?: Record<string, string>) => {
    const headers: Record<string, string> = {
      ...extraHeaders,
      host: new URL(origin).host,
      cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
    };
    if (body) headers["content-type"] = "application/json";
    const res = await AuthHandler({
      req: new Request(`${origin}/api/auth/${action}`, {
        method: body ? "POST" : "GET",
        headers,
        body: body ? JSON.stringify(body) : undefined,
      }),
      options,
    });
    for (const cookie of res.cookies ?? []) jar.set(cookie.name, cookie.value);
    return res;
  };
  const csrfToken = async () => ((await send("csrf")).body as { csrfToken: string }).csrfToken;
  return {
    jar,
    /** true when signed in; otherwise next-auth's error code (CredentialsSignin, or what authorize threw). */
    async signIn(email: string, password: string): Promise<true | string> {
      jar.delete("next-auth.session-token");
      const res = await send("callback/credentials", { csrfToken: await csrfToken(), email, password, json: "true" });
      const error = new URL(res.redirect ?? origin, origin).searchParams.get("error");
      return error ?? (jar.has("next-auth.session-token") ? true : "no session cookie");
    },
    /** What getServerSession answers for this browser's cookies: the session, or null. */
    async session(): Promise<Session | null> {
      const body = (await send("session")).body as Session | Record<string, never>;
      return body && Object.keys(body).length ? (body as Session) : null;
    },
    async signOut() {
      await send("signout", { csrfToken: await csrfToken(), json: "true" });
    },
  };
}
