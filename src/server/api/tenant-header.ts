/** The request header naming the organisation a dashboard call is about (the page's, not the cookie's). */
export const TENANT_HEADER = "x-tenant-id";
