import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { env } from "~/env";

let cached: string | undefined;

/**
 * The next-auth signing secret: NEXTAUTH_SECRET when set (required when several instances share
 * sessions); otherwise one generated on first start and kept in MEMORY_DATA_DIR, so an embedded
 * install needs no keys and sessions survive restarts.
 */
export function authSecret(): string {
  if (env.NEXTAUTH_SECRET) return env.NEXTAUTH_SECRET;
  if (cached) return cached;
  const file = path.resolve(env.MEMORY_DATA_DIR, "auth-secret");
  try {
    cached = fs.readFileSync(file, "utf8").trim();
  } catch {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const secret = randomBytes(32).toString("base64url");
    try {
      fs.writeFileSync(file, secret, { flag: "wx", mode: 0o600 });
      cached = secret;
    } catch {
      // Another process wrote it first.
      cached = fs.readFileSync(file, "utf8").trim();
    }
  }
  return cached!;
}
