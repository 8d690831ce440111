/**
 * A workspace id is its scope's id (`workspace:<id>`): short, lower case, no spaces, colons or
 * slashes, stable. Letters of any script count, so 测试项目 keeps its own name as its id rather
 * than a random one. Plain code (no server imports): the create form previews the id with it.
 */
const ID_CHAR = String.raw`\p{Ll}\p{Lm}\p{Lo}\p{M}\p{Nd}`;
/** As an HTML `pattern` (the `v` flag: `-` escaped in a class). */
export const WORKSPACE_ID_PATTERN = String.raw`[\p{Ll}\p{Lm}\p{Lo}\p{Nd}][${ID_CHAR}_\-]{0,63}`;
export const WORKSPACE_ID = new RegExp(`^${WORKSPACE_ID_PATTERN}$`, "v");
export const WORKSPACE_ID_RULE =
  "use 1–64 lower-case letters (any script), digits, - or _ (it becomes the scope workspace:<id>)";

/** Used when a name holds no letter or digit at all ("!!!"). */
const FALLBACK_ID = "workspace";
const MAX_DERIVED = 48;

/** An id from a name: its letters and digits, lower-cased, other runs joined by `-` ("Mobile App" → mobile-app, 测试项目 → 测试项目). */
export function workspaceIdFromName(name: string): string {
  const slug = name
    .normalize("NFKC")
    .toLowerCase()
    .replace(new RegExp(`[^${ID_CHAR}]+`, "gv"), "-")
    .replace(/^-+|-+$/g, "");
  // Cut by characters, not UTF-16 units, and never end on a separator.
  const cut = [...slug].slice(0, MAX_DERIVED).join("").replace(/-+$/, "");
  // A leading combining mark cannot start an id.
  return cut.replace(/^\p{M}+/u, "") || FALLBACK_ID;
}

/** `base`, or `base-2`, `base-3`… the first one not in `taken`. */
export function firstFreeId(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}
