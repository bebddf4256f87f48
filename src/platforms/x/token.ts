/**
 * The `token` query parameter the syndication API wants: the id divided by 1e15, times pi,
 * in base 36, with every `0` and `.` removed. Rounding of Number(id) is part of the scheme.
 */
export function syndicationToken(id: string): string {
  return ((Number(id) / 1e15) * Math.PI).toString(36).replace(/(0+|\.)/g, "");
}
