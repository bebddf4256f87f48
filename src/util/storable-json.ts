// A value as PostgreSQL's jsonb takes it. jsonb refuses the text escape \u0000 and a UTF-16 half
// without its other half (a lone surrogate), both of which a platform's text can hold and
// JSON.stringify writes as escapes; one such character in a record would fail the statement that
// stores it. U+0000 is dropped, a lone half becomes U+FFFD (as a decoder writes a broken byte).

const NUL = /\u0000/g;
const LONE_HALF = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The text as jsonb stores it. */
export const storableText = (text: string): string => text.replace(NUL, "").replace(LONE_HALF, "\uFFFD");

const isPlain = (value: object) => [Object.prototype, null].includes(Object.getPrototypeOf(value));

/** The value with every string in it, keys included, made storable; other values as they are. */
export function storableJson<T>(value: T): T {
  if (typeof value === "string") return storableText(value) as T;
  if (Array.isArray(value)) return value.map(storableJson) as T;
  if (value === null || typeof value !== "object" || !isPlain(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [storableText(key), storableJson(inner)]),
  ) as T;
}
