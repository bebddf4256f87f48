// The note page's `window.__INITIAL_STATE__`: the object literal the site's server writes into the
// page for its own script. It is JSON but for `undefined` where a value is missing and, now and
// then, a `new Map(...)` in a store this service does not read; `/` is written `\u002F`, which JSON
// reads. It is read as data, never run: those two become null, and the rest is JSON.parse's.

const marker = /window\.__INITIAL_STATE__\s*=\s*/;

/** The state as a value, or null when the page has none or it does not read. */
export function initialStateOf(html: string): unknown {
  const found = marker.exec(html);
  if (found === null) return null;
  const json = literalAsJson(html, found.index + found[0].length);
  if (json === null) return null;
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}

/** The end of the string literal that starts at `at` (a double quote), after its closing quote. */
function stringEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i + 1;
  }
  return text.length;
}

/** The end of the bracketed group that opens at `at`, strings skipped. */
function groupEnd(text: string, at: number): number {
  let depth = 0;
  for (let i = at; i < text.length;) {
    const c = text[i]!;
    if (c === '"') {
      i = stringEnd(text, i);
      continue;
    }
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return text.length;
}

const word = /[A-Za-z_$][\w$]*/y;
const number = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const constructed = /new\s+[A-Za-z_$][\w$.]*\s*(?=\()/y;

/** The object literal at `start` as JSON text: each word that JSON lacks, and each `new X(...)`, made null. */
function literalAsJson(text: string, start: number): string | null {
  if (text[start] !== "{") return null;
  const end = groupEnd(text, start);
  const pieces: string[] = [];
  let copied = start;
  for (let i = start; i < end;) {
    if (text[i] === '"') {
      i = stringEnd(text, i);
      continue;
    }
    number.lastIndex = i;
    const digits = number.exec(text)?.[0];
    if (digits !== undefined) {
      i += digits.length;
      continue;
    }
    constructed.lastIndex = word.lastIndex = i;
    const made = constructed.exec(text);
    const name = made === null ? word.exec(text)?.[0] : undefined;
    if (made === null && (name === undefined || name === "true" || name === "false" || name === "null")) {
      i += name?.length ?? 1;
      continue;
    }
    const after = made === null ? i + name!.length : groupEnd(text, i + made[0].length);
    pieces.push(text.slice(copied, i), "null");
    copied = i = after;
  }
  pieces.push(text.slice(copied, end));
  return pieces.join("");
}
