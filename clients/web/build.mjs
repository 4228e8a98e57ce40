// Bundles the web client: src/main.ts -> dist/web/app.js (esbuild), with
// index.html and app.css beside it.  The gateway serves dist/ (services/gateway/web.py):
// "/" is index.html, "/web/<file>" the rest.  `node build.mjs --watch` rebuilds on change.
import { build, context } from "esbuild";
import { cpSync, mkdirSync, rmSync } from "node:fs";

const options = {
  entryPoints: ["src/main.ts"],
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  sourcemap: "linked",
  outfile: "dist/web/app.js",
  logLevel: "warning",
  legalComments: "none",
};

rmSync("dist", { recursive: true, force: true });
mkdirSync("dist/web", { recursive: true });
cpSync("src/index.html", "dist/index.html");
cpSync("src/app.css", "dist/web/app.css");
if (process.argv.includes("--watch")) {
  await (await context(options)).watch();
} else {
  await build(options);
}
