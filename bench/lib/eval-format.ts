import fs from "node:fs";
import { z } from "zod";

/** The common evaluation format (../shared/bench/README.md): any dataset converts to it and runs the same way. */
export const evalMessageSchema = z.object({
  id: z.string().min(1),
  role: z.enum(["user", "assistant"]),
  speaker: z.string().optional(),
  content: z.string(),
  createdAt: z.string().optional(),
  /**
   * Optional extension: the sitting this message belongs to (LoCoMo's sessions; a MADial memory is
   * an episode of its own). Consecutive messages of one session are ingested as one service session;
   * without it a conversation is a single session.
   */
  session: z.string().optional(),
});
export const evalQuerySchema = z.object({
  id: z.string().min(1),
  conversationId: z.string().min(1),
  question: z.string(),
  evidence: z.array(z.string()),
  category: z.string().optional(),
});
export const evalDatasetSchema = z.object({
  format: z.literal("memory-eval/v1"),
  name: z.string(),
  conversations: z.array(z.object({ id: z.string().min(1), messages: z.array(evalMessageSchema) })),
  queries: z.array(evalQuerySchema),
  /** Converter notes (dropped evidence ids and the like): carried into the report. */
  notes: z.record(z.string(), z.unknown()).optional(),
});
export type EvalDataset = z.infer<typeof evalDatasetSchema>;
export type EvalMessage = z.infer<typeof evalMessageSchema>;
export type EvalQuery = z.infer<typeof evalQuerySchema>;

export function readDataset(file: string): EvalDataset {
  const parsed = evalDatasetSchema.safeParse(JSON.parse(fs.readFileSync(file, "utf8")));
  if (!parsed.success) {
    throw new Error(
      `${file} is not memory-eval/v1: ${parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.join(".")}: ${i.message}`)
        .join("; ")}`,
    );
  }
  return parsed.data;
}

export function writeDataset(file: string, dataset: EvalDataset) {
  fs.mkdirSync(new URL(".", `file://${file.startsWith("/") ? file : `${process.cwd()}/${file}`}`).pathname, {
    recursive: true,
  });
  fs.writeFileSync(file, JSON.stringify(dataset));
}

/** `--name value` and `--flag` arguments; positional ones are ignored. */
export function parseArgs(argv: readonly string[]): Map<string, string | true> {
  const out = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) continue;
    const [name, inline] = arg.slice(2).split("=", 2) as [string, string | undefined];
    const next = argv[i + 1];
    if (inline !== undefined) out.set(name, inline);
    else if (next !== undefined && !next.startsWith("--")) {
      out.set(name, next);
      i++;
    } else out.set(name, true);
  }
  return out;
}
