/**
 * Sensitive-data detection (sensitive data must not silently become long-term memory: docs/memory-model.md). Secrets
 * (keys, tokens, passwords, private keys) and high-risk identifiers (card numbers, national ids)
 * are what the write path redacts or rejects; email and phone are reported at low severity,
 * because a user may legitimately ask to remember a contact.
 */

export const SENSITIVE_TYPES = [
  "private_key",
  "api_key",
  "token",
  "password",
  "card_number",
  "national_id",
  "phone",
  "email",
] as const;
export type SensitiveType = (typeof SENSITIVE_TYPES)[number];
export type SensitiveSeverity = "low" | "high" | "critical";

export const SENSITIVE_SEVERITY: Readonly<Record<SensitiveType, SensitiveSeverity>> = {
  private_key: "critical",
  api_key: "critical",
  token: "critical",
  password: "critical",
  card_number: "high",
  national_id: "high",
  phone: "low",
  email: "low",
};

const SEVERITY_RANK: Record<SensitiveSeverity, number> = { low: 0, high: 1, critical: 2 };

export type SensitiveFinding = { type: SensitiveType; severity: SensitiveSeverity; start: number; end: number };

type Detector = {
  type: SensitiveType;
  pattern: RegExp;
  /** Capture group holding the secret itself (the label "password:" stays readable); 0 = whole match. */
  group?: number;
  accept?: (value: string) => boolean;
};

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** 13–19 digits, a card-network first digit (2–6), Luhn checksum. */
function isCardNumber(raw: string): boolean {
  const digits = raw.replace(/[ -]/g, "");
  return digits.length >= 13 && digits.length <= 19 && /^[2-6]/.test(digits) && luhnValid(digits);
}

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const ID_CHECK = "10X98765432";

/** Chinese resident id (GB 11643): 17 digits + ISO 7064 MOD 11-2 check character. */
function isChineseResidentId(raw: string): boolean {
  const id = raw.toUpperCase();
  const sum = ID_WEIGHTS.reduce((acc, weight, i) => acc + weight * Number(id[i]), 0);
  return ID_CHECK[sum % 11] === id[17];
}

const hasLetterAndDigit = (value: string) => /[A-Za-z]/.test(value) && /\d/.test(value);
/** "password is required" is prose; "password is hunter2" is a secret. */
const looksLikeSecretWord = (value: string) => /[\d\W_]/.test(value);

// Order is priority: when two findings overlap, the earlier detector wins.
const DETECTORS: readonly Detector[] = [
  {
    type: "private_key",
    pattern:
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  },
  { type: "token", pattern: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g }, // JWT
  { type: "api_key", pattern: /\bsk-[A-Za-z0-9_-]{20,}/g, accept: hasLetterAndDigit }, // OpenAI, Anthropic
  { type: "api_key", pattern: /\b[rsp]k_(?:live|test)_[0-9A-Za-z]{16,}\b/g }, // Stripe
  { type: "api_key", pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g }, // AWS access key id
  { type: "api_key", pattern: /\bAIza[0-9A-Za-z_-]{35}/g }, // Google
  { type: "token", pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g }, // GitHub
  { type: "token", pattern: /\bxox[abposre]-[0-9A-Za-z-]{10,}/g }, // Slack
  { type: "token", pattern: /\bBearer\s+([A-Za-z0-9._~+/=-]{16,})/gi, group: 1 },
  {
    type: "api_key",
    pattern:
      /\b(?:api[_-]?key|secret[_-]?key|access[_-]?key(?:[_-]?id)?|client[_-]?secret|aws[_-]?secret[_-]?access[_-]?key|app[_-]?secret)\b\s*["']?\s*[:=]\s*["']?([A-Za-z0-9_\-./+=]{8,})/gi,
    group: 1,
  },
  {
    type: "token",
    pattern:
      /\b(?:access[_-]?token|auth[_-]?token|refresh[_-]?token|api[_-]?token|token|secret)\b\s*["']?\s*[:=]\s*["']?([A-Za-z0-9_\-./+=]{12,})/gi,
    group: 1,
    accept: hasLetterAndDigit,
  },
  {
    type: "password",
    pattern: /\b(?:password|passwd|pwd|passcode|pass ?phrase)\b\s*["']?\s*[:=]\s*["']?([^\s"',;]{1,128})/gi,
    group: 1,
  },
  {
    type: "password",
    pattern: /\b(?:password|passwd|passcode)\s+(?:is|was)\s+["']?([^\s"',;]{1,128})/gi,
    group: 1,
    accept: looksLikeSecretWord,
  },
  // Chinese: the secret is ASCII, so "密码是什么" (a question) does not match.
  { type: "password", pattern: /(?:密码|口令|密钥|pin码|PIN码)\s*(?:是|为|:|：|=)\s*([!-~]{1,128})/g, group: 1 },
  {
    type: "national_id",
    pattern:
      /(?<![0-9A-Za-z])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?![0-9A-Za-z])/g,
    accept: isChineseResidentId,
  },
  { type: "card_number", pattern: /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g, accept: isCardNumber },
  { type: "national_id", pattern: /(?<!\d)(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?!\d)/g }, // US SSN
  // The lookbehind stops a retry at every character of a long run (quadratic on "xxxx…").
  {
    type: "email",
    pattern:
      /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,24}(?![A-Za-z])/g,
  },
  { type: "phone", pattern: /(?<![\d+])(?:\+?86[ -]?)?1[3-9]\d[ -]?\d{4}[ -]?\d{4}(?!\d)/g }, // Chinese mobile
  { type: "phone", pattern: /(?<![\w+])\+\d{1,3}[ -]?(?:\(\d{1,4}\)[ -]?)?\d{2,4}(?:[ -]?\d{2,4}){1,3}(?!\d)/g }, // international
  { type: "phone", pattern: /(?<!\d)\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4}(?!\d)/g }, // North American
];

function collect(text: string): SensitiveFinding[] {
  const accepted: SensitiveFinding[] = [];
  const overlaps = (start: number, end: number) => accepted.some((f) => start < f.end && f.start < end);
  for (const detector of DETECTORS) {
    for (const match of text.matchAll(detector.pattern)) {
      const group = detector.group ?? 0;
      const value = match[group];
      if (value === undefined || match.index === undefined) continue;
      if (detector.accept && !detector.accept(value)) continue;
      const start = match.index + (group === 0 ? 0 : match[0].lastIndexOf(value));
      const end = start + value.length;
      if (!overlaps(start, end))
        accepted.push({ type: detector.type, severity: SENSITIVE_SEVERITY[detector.type], start, end });
    }
  }
  return accepted.sort((a, b) => a.start - b.start);
}

/** Every sensitive span in `text` (UTF-16 offsets, non-overlapping, in order). */
export function detectSensitive(text: string): SensitiveFinding[] {
  return typeof text === "string" && text ? collect(text) : [];
}

export type RedactOptions = {
  /** Redact findings at or above this severity; default "high" (secrets and ids, not email/phone). */
  minSeverity?: SensitiveSeverity;
};

const atLeast = (finding: SensitiveFinding, min: SensitiveSeverity) =>
  SEVERITY_RANK[finding.severity] >= SEVERITY_RANK[min];

/** Replaces each finding with `[REDACTED:<type>]`. */
export function redactSensitive(text: string, options: RedactOptions = {}): string {
  const min = options.minSeverity ?? "high";
  let out = "";
  let cursor = 0;
  for (const finding of detectSensitive(text)) {
    if (!atLeast(finding, min)) continue;
    out += `${text.slice(cursor, finding.start)}[REDACTED:${finding.type}]`;
    cursor = finding.end;
  }
  return out + text.slice(cursor);
}

/** redactSensitive over every string value inside a JSON value (a card's valueJson, a message's metadata). */
export function redactSensitiveJson(value: unknown, options: RedactOptions = {}): unknown {
  if (typeof value === "string") return redactSensitive(value, options);
  if (Array.isArray(value)) return value.map((item) => redactSensitiveJson(item, options));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactSensitiveJson(item, options)]));
  return value;
}

const REDACTION_MARK = /\[REDACTED:[a-z_]+\]/;

/** Whether any string in a value carries a redaction mark (redacted before, e.g. by the export it came from); JSON text escapes none of its characters. */
export const carriesRedactionMark = (value: unknown): boolean => REDACTION_MARK.test(JSON.stringify(value) ?? "");

// ---- whole card drafts -----------------------------------------------------------------------

export type SensitiveDraft = {
  title?: unknown;
  content?: unknown;
  itemKey?: unknown;
  valueJson?: unknown;
  tags?: unknown;
  entities?: unknown;
};

export type DraftFinding = SensitiveFinding & {
  /** Where it was found: `title`, `valueJson.account.password`, `tags[2]`. */
  field: string;
};

/** A JSON property named like a secret makes its whole value one, even when the value looks harmless ("hunter"). */
const SECRET_PROPERTY =
  /^(?:password|passwd|pwd|passcode|passphrase|secret|client_?secret|api_?key|access_?key|secret_?key|private_?key|token|access_?token|refresh_?token|auth_?token|密码|口令|密钥)$/i;

function secretTypeForProperty(name: string): SensitiveType {
  if (/key/i.test(name) || name === "密钥") return /private/i.test(name) ? "private_key" : "api_key";
  if (/token|secret/i.test(name)) return "token";
  return "password";
}

const DRAFT_FIELDS = ["title", "content", "itemKey", "valueJson", "tags", "entities"] as const;

/** Walks strings (and secret-named properties) in a value, calling `visit` with each leaf's path. */
function walk(
  value: unknown,
  path: string,
  visit: (text: string, path: string, secretProperty?: string) => void,
  property?: string,
) {
  const secretProperty = property && SECRET_PROPERTY.test(property) ? property : undefined;
  if (typeof value === "string") visit(value, path, secretProperty);
  else if (typeof value === "number" && secretProperty) visit(String(value), path, secretProperty);
  else if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}[${i}]`, visit, property));
  else if (value && typeof value === "object") {
    for (const [key, child] of Object.entries(value as Record<string, unknown>))
      walk(child, `${path}.${key}`, visit, key);
  }
}

/** Findings across a card draft's title, content, itemKey, valueJson (deep, keys included), tags and entities. */
export function findSensitiveInDraft(draft: SensitiveDraft): DraftFinding[] {
  const findings: DraftFinding[] = [];
  for (const field of DRAFT_FIELDS) {
    walk(draft[field], field, (text, path, secretProperty) => {
      const found = detectSensitive(text);
      findings.push(...found.map((finding) => ({ ...finding, field: path })));
      if (secretProperty && found.length === 0 && text.trim()) {
        const type = secretTypeForProperty(secretProperty);
        findings.push({ type, severity: SENSITIVE_SEVERITY[type], start: 0, end: text.length, field: path });
      }
    });
  }
  return findings;
}
