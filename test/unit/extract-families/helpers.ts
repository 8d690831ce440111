import { extractOperations } from "~/server/tree/extract-rules";

/** The candidates of one message as [kind, itemKey, value] rows (the shape a test compares). */
export const slots = (text: string) =>
  extractOperations(text).map((op) => [op.kind, op.itemKey ?? null, op.node.valueJson ?? null]);

/** The candidates of one kind. */
export const ofKind = (text: string, kind: string) => extractOperations(text).filter((op) => op.kind === kind);
