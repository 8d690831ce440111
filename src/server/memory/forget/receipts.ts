import type { ErasureReceipt } from "./schema";

/** Two receipts as one: counts summed, ids joined. */
export function mergeReceipts(a: ErasureReceipt, b: ErasureReceipt): ErasureReceipt {
  const merged = { ...a };
  for (const key of Object.keys(b) as (keyof ErasureReceipt)[]) {
    const [x, y] = [a[key], b[key]];
    if (typeof x === "number" && typeof y === "number") (merged[key] as number) = x + y;
    else if (Array.isArray(x) && Array.isArray(y)) (merged[key] as string[]) = [...x, ...y];
  }
  return merged;
}

/** A receipt's counts without its id lists, for an audit row. */
export function receiptCounts(receipt: ErasureReceipt) {
  const { nodeIds: _n, lineageIds: _l, messageIds: _m, ...counts } = receipt;
  return counts;
}
