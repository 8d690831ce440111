import { sql, type SQL } from "drizzle-orm";
import { anyOf } from "~/db/any-of";
import { queryRows } from "~/db/raw";
import type { DbOrTx } from "~/db/types";
import type { MatchedDoc } from "./bm25";
import type { QueryTerm } from "./query-terms";
import { BELOW_LENDER, liftBelowLender } from "./lending";
import { termWeights, type SecondStageFeatures } from "./second-stage";
import type { FullTextHit } from "./signals";
import type { TextSource } from "./text-sources";

/**
 * A turn is read in its conversation: part of each full-text hit's score is lent to the turns
 * before and after it in the same session (0.5 at ±1, 0.2 at ±2). Answers often sit next to the
 * turn that names the topic ("What did you do yesterday?" → "Went to the support group").
 * Measured on LoCoMo (categories 1–4, recall@10): 0.60 → 0.69.
 */
const CONTEXT_SPREAD = [0.5, 0.2] as const;
/** The best full-text hits lend to their neighbours; the tail's share would not change the top. */
const SPREADING_HITS = 30;
/** Along a log a hit lends at least this part of a dialogue's share; the rest by what the neighbour supplies. */
export const LOG_SHARE_FLOOR = 0.5;

export type Scored = {
  id: string;
  score: number;
  own: number;
  context: number;
  secondStage?: SecondStageFeatures;
  /** Lent by the second hop's seeds. */
  hop?: number;
};

/** The first hop's match: its terms, their document frequencies, and each matched row's term flags. */
export type SpreadMatch = {
  terms: readonly QueryTerm[];
  df: readonly number[];
  n: number;
  docs: readonly MatchedDoc[];
};

/** How the hits lend along a log, that is one speaker's lines with no turn of another role around the hit. */
export type LogSpreading = "none" | "full" | "supplied";

/**
 * A neighbour row: the lender it belongs to, its id and role, which side of the lender (-1 before, 1
 * after) at which distance order, and whether it opens with a pronoun that points back (REFERRING_HEAD).
 */
type NeighbourRow = [lender: string, id: string, role: string, side: -1 | 1, refers: boolean];

/**
 * How a line that points back at someone the line before named opens (a POSIX regular expression,
 * matched case-insensitively): "她在杭州做设计师" after "我表姐叫刘洋" is about 刘洋 as much as a line
 * naming her ("他们", "他的" too). English "it" is left out: "It rained".
 */
const REFERRING_HEAD = "^\\s*(他|她|它|(he|she|they|his|her|their)\\M)";
/** Lines after a hit read for a run of lines pointing back at it (the usual spreading reads two). */
const REFERRING_RUN = 4;
/**
 * How a turn that asks ends (a POSIX regular expression): a question mark, then at most closing quotes
 * or brackets. "How long have you been married?" matches the question as well as any turn does; the
 * fact asked for ("5 years already!") is in the reply.
 */
const ASKING_TAIL = "[?？][]\"'”’)）」』》[:space:]]*$";
/**
 * What a hit that asks lends, in a dialogue, to the next turn when another role speaks it: its whole
 * score, not a neighbour's half, so the reply ranks with the question it answers. Measured on LoCoMo
 * (categories 1–4) at 0.8, 1, 1.5 and 2 (docs/retrieval.md, "A reply to a question"); 1 is the share
 * that needs no fitting.
 */
export const REPLY_SHARE = 1;

/**
 * The share of the question's weight (termWeights: as the second stage weighs a term) the lender lacks that the neighbour holds:
 * 1 when the neighbour holds every question word the lender lacks, 0 when it adds none (or the
 * lender lacks none). `lender` and `neighbour`: term frequencies per question term (MatchedDoc.tf).
 */
export function suppliedShare(
  weights: readonly number[],
  lender: readonly number[],
  neighbour: readonly number[] | undefined,
): number {
  if (!neighbour) return 0;
  return weightShare(
    weights,
    (i) => !holds(lender, i),
    (i) => holds(neighbour, i),
  );
}

const holds = (tf: readonly number[] | undefined, i: number) => (tf?.[i] ?? 0) > 0;

/** Of the weight of the terms `among` picks, the share `counted` picks too (0 when `among` picks none). */
function weightShare(
  weights: readonly number[],
  among: (i: number) => boolean,
  counted: (i: number) => boolean,
): number {
  let total = 0;
  let part = 0;
  weights.forEach((weight, i) => {
    if (!among(i)) return;
    total += weight;
    if (counted(i)) part += weight;
  });
  return total > 0 ? part / total : 0;
}

/** The lines after a hit, nearest first, up to the first that does not point back or is another role's turn. */
function referringRun(after: readonly NeighbourRow[], role: string): NeighbourRow[] {
  const end = after.findIndex((line) => !line[4] || line[2] !== role);
  return after.slice(0, end < 0 ? after.length : end);
}

/**
 * The share of the question's weight the lender holds that the neighbour does not: what a line pointing
 * back at the lender by a pronoun holds by reference (1 when it holds none of the lender's words).
 */
export function referredShare(
  weights: readonly number[],
  lender: readonly number[],
  neighbour: readonly number[] | undefined,
): number {
  return weightShare(
    weights,
    (i) => holds(lender, i),
    (i) => !holds(neighbour, i),
  );
}

/** The part of a dialogue's share a hit lends along a log to a neighbour that supplies `supplied` (suppliedShare). */
export const logMeasure = (supplied: number) => LOG_SHARE_FLOOR + (1 - LOG_SHARE_FLOOR) * supplied;

/**
 * Of these hits (each in a dialogue, with another role's turn next), the ones whose turn ends by asking
 * (ASKING_TAIL): one statement by id within the caller's scope, and none where no hit stands so, as along
 * a log (reading each hit's own line with its neighbours cost a search along one speaker's log ~10 %).
 */
async function askingLines(
  db: DbOrTx,
  source: TextSource,
  where: SQL,
  hits: readonly FullTextHit[],
): Promise<Set<string>> {
  if (hits.length === 0) return new Set();
  const t = sql.raw(source.table);
  const rows = await queryRows<{ id: string }>(
    db,
    sql`select ${t}.id from ${t} where ${where} and ${anyOf(
      sql`${t}.id`,
      hits.map((h) => h.id),
    )} and ${t}.content ~ ${ASKING_TAIL}`,
  );
  return new Set(rows.map((row) => row.id));
}

/**
 * Full-text scores spread over session neighbours. For each of the best hits, the two turns before and
 * the two after it in its session (four after it, for a run of lines pointing back: REFERRING_RUN) are read by the session index ((tenant, session, seq): `seq` is one
 * sequence for all sessions, so a session's turns are ordered by it but not numbered 1, 2, 3), within
 * the caller's scope like everything else; a long session costs no more than a short one.
 *
 * In a dialogue (a turn of another role among them) each hit lends its full share. Along one
 * speaker's log (notes, a diary, many stories pooled) the next line may be another matter, or the same
 * story's next fact: `log` says how such a hit lends. "supplied": half a dialogue's share, and up to
 * all of it in the measure that the neighbour holds the question's words the hit lacks (suppliedShare:
 * the two lines together answer more of the question than the hit alone); the neighbour rises at most
 * to just below the hit. Without that ceiling, chit-chat lines around a hit lifted each other above a
 * fact that stood alone (madial-zh-noisy MRR −0.038); docs/retrieval.md, "Spreading along a log".
 */
export async function spreadOverSessions(
  db: DbOrTx,
  params: {
    source: TextSource;
    where: SQL;
    lenders: readonly FullTextHit[];
    hits: readonly FullTextHit[];
    log: LogSpreading;
    match: SpreadMatch;
    /** Lines after a hit that point back at it by a pronoun get its score for the question's words they lack (default true). */
    refersBack?: boolean;
    /** In a dialogue, a hit that asks lends REPLY_SHARE of its score to the reply after it (default true). */
    repliesAnswer?: boolean;
  },
): Promise<{ scored: Scored[]; dialogue: Set<string>; referredTo: Map<string, string> }> {
  const { source, where, match } = params;
  const own = new Map(params.hits.map((h) => [h.id, h.score]));
  // Turns seen to stand in a dialogue: a lender with a turn of another role around it, and the turns it lent to.
  const dialogue = new Set<string>();
  const spreaders = params.lenders.slice(0, SPREADING_HITS);
  const context = new Map<string, number>();
  // Lent along a log, and the best lender there: kept apart, as that part has a ceiling.
  const logLoans = new Map<string, number>();
  const logCeiling = new Map<string, number>();
  // What a line pointing back by a pronoun gets from the line it points at (the one giving most).
  const referred = new Map<string, { lift: number; lender: string }>();
  if (spreaders.length > 0) {
    const t = sql.raw(source.table);
    const lenderRows = sql.join(
      spreaders.map((h) => sql`(${h.id}, ${String(h.extra.session_id)}, ${Number(h.extra.seq)}::bigint)`),
      sql`, `,
    );
    // Lines after a hit are read further, and tested for a pronoun, only where a run can lend.
    const readsRuns = params.log === "supplied" && params.refersBack !== false;
    const side = (direction: "before" | "after") => {
      const before = direction === "before";
      const runs = readsRuns && !before;
      return sql`(select ${t}.id, ${t}.role, ${before ? -1 : 1}::int as side, ${t}.seq,
                         ${runs ? sql`${t}.content ~* ${REFERRING_HEAD}` : sql`false`} as refers from ${t}
                   where ${where} and ${t}.session_id = l.session_id and ${t}.seq ${sql.raw(before ? "<" : ">")} l.seq
                   order by ${t}.seq ${sql.raw(before ? "desc" : "asc")} limit ${runs ? REFERRING_RUN : 2})`;
    };
    const [row] = await queryRows<{ rows: string | null }>(
      db,
      sql`select json_agg(json_build_array(l.id, n.id, n.role, n.side, n.refers) order by l.id, n.side, abs(n.seq - l.seq))::text as rows
            from (values ${lenderRows}) as l(id, session_id, seq)
            cross join lateral (${side("before")} union all ${side("after")}) as n`,
    );
    const rows = row?.rows ? (JSON.parse(row.rows) as NeighbourRow[]) : [];
    const around = new Map<string, { before: NeighbourRow[]; after: NeighbourRow[] }>();
    for (const r of rows) {
      const entry = around.get(r[0]) ?? { before: [], after: [] };
      (r[3] < 0 ? entry.before : entry.after).push(r);
      around.set(r[0], entry);
    }
    // What a neighbour adds to its lender: read only where a hit lends by it.
    const byLog = params.log === "supplied";
    const weights = byLog ? termWeights(match.terms, match.df, match.n) : [];
    const tfOf = new Map(byLog ? match.docs.map((doc) => [doc.id, doc.tf]) : []);
    // The two turns on each side say whether a hit stands in a dialogue (the lines further after it
    // are read only for a run pointing back).
    const standsInDialogue = (hit: FullTextHit) => {
      const near = around.get(hit.id);
      return !!near && [...near.before, ...near.after.slice(0, 2)].some((r) => r[2] !== String(hit.extra.role));
    };
    // A hit whose next turn is another role's (so it stands in a dialogue) may be a question that turn answers.
    const hasOtherRoleNext = (hit: FullTextHit) => {
      const next = around.get(hit.id)?.after[0];
      return next !== undefined && next[2] !== String(hit.extra.role);
    };
    const asking =
      params.repliesAnswer !== false
        ? await askingLines(db, source, where, spreaders.filter(hasOtherRoleNext))
        : new Set<string>();
    for (const hit of spreaders) {
      const near = around.get(hit.id);
      if (!near) continue;
      const inDialogue = standsInDialogue(hit);
      if (!inDialogue && params.log === "none") continue;
      if (inDialogue) dialogue.add(hit.id);
      const supplied = !inDialogue && byLog;
      const lend = (neighbour: NeighbourRow | undefined, share: number) => {
        if (!neighbour) return;
        const measure = supplied
          ? logMeasure(suppliedShare(weights, tfOf.get(hit.id) ?? [], tfOf.get(neighbour[1])))
          : 1;
        const loans = supplied ? logLoans : context;
        loans.set(neighbour[1], (loans.get(neighbour[1]) ?? 0) + measure * share * hit.score);
        if (supplied) logCeiling.set(neighbour[1], Math.max(logCeiling.get(neighbour[1]) ?? 0, hit.score));
        if (inDialogue) dialogue.add(neighbour[1]);
      };
      // A question's reply (the next turn, another role's) gets its whole score: that is where its answer is.
      lend(near.before[0], CONTEXT_SPREAD[0]);
      lend(near.after[0], asking.has(hit.id) ? REPLY_SHARE : CONTEXT_SPREAD[0]);
      lend(near.before[1], CONTEXT_SPREAD[1]);
      lend(near.after[1], CONTEXT_SPREAD[1]);
      // Along a log, the run of lines right after a hit that point back at it by a pronoun ("她…。她…。")
      // are read as naming what it names: they may get its score for the question's words they lack.
      const run = supplied && readsRuns ? referringRun(near.after, String(hit.extra.role)) : [];
      for (const line of run) {
        const lift = hit.score * referredShare(weights, tfOf.get(hit.id) ?? [], tfOf.get(line[1]));
        if (lift > (referred.get(line[1])?.lift ?? 0)) referred.set(line[1], { lift, lender: hit.id });
      }
    }
  }
  const ids = new Set([...own.keys(), ...context.keys(), ...logLoans.keys(), ...referred.keys()]);
  // The line each line pointing back is read with (evidence.ts): only where that is what its score stands for.
  const referredTo = new Map<string, string>();
  const scored = [...ids]
    .map((id) => {
      const ownScore = own.get(id) ?? 0;
      const base = ownScore + (context.get(id) ?? 0);
      // What log lines lent takes it at most to just below its best log lender; dialogue loans have no ceiling.
      const lent = logLoans.has(id) ? liftBelowLender(base, logLoans.get(id)!, logCeiling.get(id)!) : base;
      // A line pointing back holds its own words and, by reference, its lender's: its own score plus
      // that, or what spreading gave it, whichever is more. With no word of its own it ends just below
      // the lender; with some it may pass it.
      const reference = referred.get(id);
      const byReference = reference ? ownScore + reference.lift * BELOW_LENDER : 0;
      if (reference && byReference > lent) referredTo.set(id, reference.lender);
      const score = Math.max(lent, byReference);
      return { id, own: ownScore, context: score - ownScore, score };
    })
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  return { scored, dialogue, referredTo };
}
