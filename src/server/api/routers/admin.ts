import { createTRPCRouter } from "../trpc";

export const adminRouter = createTRPCRouter({});
