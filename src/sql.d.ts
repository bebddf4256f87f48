// SQL files, the extraction host's Python program and the tools' watchdog script are bundled as
// text (vite's ?raw in tests, an esbuild plugin in build.mjs).
declare module "*.sql?raw" {
  const text: string;
  export default text;
}
declare module "*.py?raw" {
  const text: string;
  export default text;
}
declare module "*.sh?raw" {
  const text: string;
  export default text;
}
