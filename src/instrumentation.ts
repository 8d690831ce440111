/**
 * Runs once when the server starts: open the database (applying migrations under the advisory lock)
 * before the first request, and say where to sign in. A failed migration stops the server here with
 * the reason, instead of serving on an unknown schema.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startServer } = await import("~/server/startup");
  await startServer();
}
