export * from "./auth";
export * from "./tenants";
export * from "./access";
export * from "./memory";
export * from "./tree";
export * from "./jobs";
export * from "./usage";
