import { getDatabase } from "~/db/client";
import { getHealth } from "~/server/health";
import { createTRPCRouter, publicProcedure } from "../trpc";

export const healthRouter = createTRPCRouter({
  check: publicProcedure.query(async () => getHealth(await getDatabase())),
});
