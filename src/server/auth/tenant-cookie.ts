/**
 * The organisation a signed-in person is looking at, remembered per browser. Only a preference: every
 * request checks the membership, and a cookie naming an organisation they left falls back to their
 * first one. No server imports, so the sidebar's switcher can set it.
 */
export const TENANT_COOKIE = "memory-tenant";
