// SQL files are bundled as text (vite's ?raw in tests, an esbuild plugin in build.mjs).
declare module "*.sql?raw" {
  const text: string;
  export default text;
}
