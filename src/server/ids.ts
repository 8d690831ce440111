import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/** Readable random ids with a type prefix (`usr_…`, `mem_…`): 20 base-36 chars ≈ 103 bits. */
export function newId(prefix: string): string {
  const bytes = randomBytes(20);
  let out = "";
  for (const byte of bytes) out += ALPHABET[byte % 36];
  return `${prefix}_${out}`;
}
