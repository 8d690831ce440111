import { NextResponse } from "next/server";
import { getDatabase } from "~/db/client";
import { getHealth } from "~/server/health";
import { logServerError } from "~/server/log";

export const dynamic = "force-dynamic";

export async function GET() {
  try {
    return NextResponse.json(await getHealth(await getDatabase()));
  } catch (error) {
    logServerError("health", error);
    const message = error instanceof Error ? error.message : "unknown error";
    return NextResponse.json({ status: "error", error: message }, { status: 503 });
  }
}
