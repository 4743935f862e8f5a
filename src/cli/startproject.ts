/**
 * `netweir startproject NAME` (C24): a new project in the shape `netweir serve --project` expects, with an example
 * spider that runs as it is.
 */
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { basename, dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { UsageError } from "../errors.ts";
import { runtime } from "../runtime/mod.ts";
import { VERSION } from "../version.ts";
import type { CommandContext } from "./context.ts";
import { CommandError } from "./errors.ts";

/** What a project name may be: it becomes a directory and the NAME in `serve --project NAME=...`. */
const PROJECT_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

// This installation's library and CLI, beside src/ (.ts from the sources, .js in the npm build). The new project's
// deno.json points "netweir" at this very mod file, by absolute file URL, so the project runs against the Netweir
// that created it. The npm build will point it at the package instead.
const OWN_EXTENSION = extname(fileURLToPath(import.meta.url));
const MOD_URL = new URL(`../../mod${OWN_EXTENSION}`, import.meta.url).href;
const CLI_PATH = fileURLToPath(new URL(`../../cli${OWN_EXTENSION}`, import.meta.url));
/** The installation's root: the npm package's directory in the npm build. */
const PACKAGE_DIR = dirname(fileURLToPath(MOD_URL));

const EXAMPLE_SPIDER = `/**
 * An example spider: the books of books.toscrape.com, a site made for practising crawling.
 * Run it with: netweir crawl spiders/example.ts -o items.jsonl
 */
import { type Page, Spider } from "netweir";

export class Example extends Spider {
  override name = "example";
  override startUrls = ["https://books.toscrape.com/"];

  override async *parse(page: Page) {
    for (const href of page.css("article.product_pod h3 a").attrs("href")) {
      yield page.follow(href, { callback: this.parseBook });
    }
    const next = page.css("li.next a").attr("href");
    if (next) yield page.follow(next);
  }

  parseBook(page: Page) {
    return { title: page.css("h1").text(), price: page.css(".price_color").text(), url: page.url };
  }
}
`;

/** A word for deno task's shell, double-quoted when it needs to be. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@-]+$/.test(word) ? word : JSON.stringify(word);
}

function denoJson(): string {
  const { command, args } = runtime.selfCommand(CLI_PATH);
  const config = {
    imports: { netweir: MOD_URL },
    // For running the project without `netweir` on the PATH: deno task netweir crawl spiders/example.ts
    // The runtime by its bare name ("deno", "node"), found on the PATH like any task's command, rather than the
    // absolute path of this one binary.
    tasks: { netweir: [basename(command), ...args].map(shellWord).join(" ") },
  };
  return JSON.stringify(config, null, 2) + "\n";
}

/**
 * Under Node: a package.json that makes the project's .ts spiders ES modules (a project inside one made by
 * `npm init -y`, `"type": "commonjs"`, would load them as CommonJS and fail) and lists netweir, this version.
 */
function packageJson(name: string): string {
  // The single binary holds the library and resolves "netweir" itself: nothing to install.
  const dependencies = runtime.standalone ? {} : { dependencies: { netweir: VERSION } };
  const config = { name, private: true, type: "module", ...dependencies };
  return JSON.stringify(config, null, 2) + "\n";
}

/** How the project's README and the closing hint run Netweir: npx for the npm package, the command itself otherwise. */
function runWord(): string {
  return runtime.name === "node" && !runtime.standalone ? "npx netweir" : "netweir";
}

function readme(name: string): string {
  const run = runWord();
  return `# ${name}

A Netweir project. Its spiders are the files in \`spiders/\`; \`spiders/example.ts\` collects the
books of books.toscrape.com.

## Run a spider

From this directory:

    ${run} crawl spiders/example.ts -o items.jsonl

Each item becomes one line of \`items.jsonl\`.${
    runtime.name === "node" ? "" : ` Without \`netweir\` on your PATH, \`deno task netweir\` runs the same
command line: \`deno task netweir crawl spiders/example.ts -o items.jsonl\`.`
  }

\`${run} list spiders\` shows the spiders the project holds.

## Serve it

From the directory above this one, \`netweir serve\` runs this project's spiders as jobs over HTTP:

    ${run} serve --project ${name}=${name}/spiders
`;
}

/**
 * Creates the project directory `name` (relative to the working directory) with spiders/example.ts, deno.json and
 * README.md. Returns the directory's absolute path.
 *
 * @throws UsageError when the name is not identifier-like; CommandError when something called `name` exists.
 */
export async function startProject(name: string): Promise<string> {
  if (!PROJECT_NAME.test(name)) {
    throw new UsageError(
      `invalid project name "${name}": use a letter, then letters, digits, "_" or "-"`,
    );
  }
  const directory = resolve(runtime.cwd(), name);
  try {
    // Not recursive: mkdir itself refuses an existing directory (or file), so nothing of the user's is touched.
    await mkdir(directory);
  } catch (error) {
    if ((error as { code?: string }).code === "EEXIST") throw new CommandError(`${name} already exists`);
    throw error;
  }
  await mkdir(join(directory, "spiders"));
  await writeFile(join(directory, "spiders", "example.ts"), EXAMPLE_SPIDER);
  if (runtime.name === "node") {
    await writeFile(join(directory, "package.json"), packageJson(name));
    // `import ... from "netweir"` finds this very installation, as deno.json's import map does under Deno: with
    // npx or a global install there is no node_modules above the project to find it in. `npm install` replaces
    // the link with the same version from the registry. The single binary has no such directory (its library is
    // inside it) and needs none: it resolves "netweir" in a spider itself.
    if (!runtime.standalone) {
      await mkdir(join(directory, "node_modules"));
      await symlink(PACKAGE_DIR, join(directory, "node_modules", "netweir"), "junction");
    }
  } else await writeFile(join(directory, "deno.json"), denoJson());
  await writeFile(join(directory, "README.md"), readme(name));
  return directory;
}

/** Adds `startproject NAME`. */
export function addStartProjectCommand(program: Command, context: CommandContext): void {
  program
    .command("startproject <name>")
    .description("create a project directory with an example spider")
    .addHelpText(
      "after",
      `
NAME (a letter, then letters, digits, "_" or "-") becomes a new directory holding spiders/example.ts,
README.md and, under Deno, deno.json (mapping "netweir" to this installation); under Node, package.json
("type": "module") and node_modules/netweir (a link to this installation; the single binary needs none). An
existing NAME is left alone (exit 1).`,
    )
    .action(async (name: string) => {
      await startProject(name);
      context.out(
        `created ${name}/ with spiders/example.ts, ${
          runtime.name === "node" ? "package.json" : "deno.json"
        } and README.md\n` +
          `try: cd ${name} && ${runWord()} crawl spiders/example.ts -o items.jsonl\n`,
      );
    });
}
