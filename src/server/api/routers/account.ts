import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { env } from "~/env";
import { ServiceError } from "~/server/errors";
import { AccountError, countUsers, registerAccount } from "~/server/auth/accounts";
import { MIN_PASSWORD_LENGTH } from "~/server/auth/password";
import { createTRPCRouter, dashboardProcedure, publicProcedure } from "../trpc";

export const accountRouter = createTRPCRouter({
  /** What the sign-in page needs to know: is this an empty install, may people sign up? */
  signUpStatus: publicProcedure.query(async ({ ctx }) => {
    const users = await countUsers(ctx.db);
    return { emptyInstall: users === 0, signUpOpen: users === 0 || env.MEMORY_OPEN_SIGNUP };
  }),
  signUp: dashboardProcedure
    .input(
      z.object({
        email: z.string().trim().email().max(320),
        password: z.string().min(MIN_PASSWORD_LENGTH).max(200),
        name: z.string().trim().min(1).max(120).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      try {
        const account = await registerAccount(ctx.db, { ...input, openSignup: env.MEMORY_OPEN_SIGNUP });
        return {
          userId: account.user.id,
          tenantId: account.tenantId,
          role: account.role,
          firstAdmin: account.firstAdmin,
        };
      } catch (error) {
        if (error instanceof AccountError) {
          const code =
            error.reason === "signup_closed"
              ? "FORBIDDEN"
              : error.reason === "email_taken"
                ? "CONFLICT"
                : "BAD_REQUEST";
          throw new TRPCError({
            code,
            message: error.message,
            cause: new ServiceError(code, error.reason, error.message),
          });
        }
        throw error;
      }
    }),
});
