// Where docs/api.md's generated table of the platforms sits: between these two markers.
export const TABLE_START = "<!-- platforms table: made by `npm run docs:platforms` from src/platforms/list.ts -->";
export const TABLE_END = "<!-- end of the platforms table -->";

/** The generated table of `markdown`, between the markers. */
export function platformsTableOf(markdown: string): string {
  const start = markdown.indexOf(TABLE_START);
  const end = markdown.indexOf(TABLE_END);
  if (start === -1 || end < start) throw new Error("docs/api.md has no platforms table markers");
  return markdown.slice(start + TABLE_START.length, end).trim();
}

/** `markdown` with the table between the markers replaced by `table`. */
export function withPlatformsTable(markdown: string, table: string): string {
  const start = markdown.indexOf(TABLE_START) + TABLE_START.length;
  return `${markdown.slice(0, start)}\n${table}\n${markdown.slice(markdown.indexOf(TABLE_END))}`;
}
