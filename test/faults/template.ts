/** The tenant that exists in every copy of the faults project's PGlite template (see global-setup.ts). */
export const TEMPLATE_TENANT = "ten_faults";
/** Content of the one card the template holds for TEMPLATE_TENANT: data that must survive every fault. */
export const KEEPER_CONTENT = "Written before the fault.";
