// SQL files, and the extraction host's Python program, are bundled as text (vite's ?raw in tests,
// an esbuild plugin in build.mjs).
declare module "*.sql?raw" {
  const text: string;
  export default text;
}
declare module "*.py?raw" {
  const text: string;
  export default text;
}
