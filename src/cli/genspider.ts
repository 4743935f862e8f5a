/**
 * `netweir genspider NAME DOMAIN [--template T]`: a new spider file from a template (spider_templates.ts), in the
 * project's spiders/ directory when run in a project made by `startproject` (or in its spiders/ directory), else in
 * the current directory. It never overwrites a file.
 */
import { stat, writeFile } from "node:fs/promises";
import { basename, join, relative } from "node:path";
import { type Command, InvalidArgumentError } from "commander";
import { UsageError } from "../errors.ts";
import { runtime } from "../runtime/mod.ts";
import type { CommandContext } from "./context.ts";
import { CommandError } from "./errors.ts";
import { spiderFromTemplate, type TemplateName, TEMPLATES } from "./spider_templates.ts";

/** A spider name: it becomes a file name and a class name. */
const SPIDER_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

const HELP_AFTER = `
DOMAIN is a host name (example.com, the spider starts at https://example.com/) or a URL to start from.
Templates: basic (start URLs, a parse callback), rules (link-following rules), sitemap (pages from sitemap.xml),
render (pages rendered in Chromium). In a project made by startproject the file goes in spiders/.
Exit status: 0 when the file was written, 1 when it exists already, 2 for a bad name, domain or template.`;

async function isDirectory(path: string): Promise<boolean> {
  return await stat(path).then((info) => info.isDirectory(), () => false);
}

async function exists(path: string): Promise<boolean> {
  return await stat(path).then(() => true, () => false);
}

/** Where new spiders go: spiders/ in a project (deno.json or package.json beside it), the directory itself if it is one. */
async function spiderDirectory(cwd: string): Promise<string> {
  const project = (await exists(join(cwd, "deno.json"))) || (await exists(join(cwd, "package.json")));
  if (project && await isDirectory(join(cwd, "spiders"))) return join(cwd, "spiders");
  return cwd;
}

/** The class name for a spider name: books-new becomes BooksNew. */
function className(name: string): string {
  return name.split(/[-_]+/).filter(Boolean).map((part) => part[0].toUpperCase() + part.slice(1)).join("");
}

/** The domain and the start URL from DOMAIN: a host name, or a URL. */
function site(domain: string): { domain: string; startUrl: string } {
  const isUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(domain);
  const url = isUrl || !/[\s/:@]/.test(domain) ? URL.parse(isUrl ? domain : `https://${domain}/`) : null;
  if (url === null || !/^https?:$/.test(url.protocol) || url.hostname === "") {
    throw new UsageError(`invalid domain "${domain}": give a host name (example.com) or an http(s) URL`);
  }
  return { domain: url.hostname, startUrl: url.href };
}

/** Writes the spider file; returns its path relative to the working directory. */
export async function generateSpider(name: string, domain: string, template: TemplateName): Promise<string> {
  if (!SPIDER_NAME.test(name)) {
    throw new UsageError(`invalid spider name "${name}": use a letter, then letters, digits, "_" or "-"`);
  }
  const values = { name, className: className(name), ...site(domain) };
  const cwd = runtime.cwd();
  const path = join(await spiderDirectory(cwd), `${name}.ts`);
  const shown = relative(cwd, path) || basename(path);
  try {
    // "wx": the file is created only if it is not there, in one step, so nothing of the user's is overwritten.
    await writeFile(path, spiderFromTemplate(template, values), { flag: "wx" });
  } catch (error) {
    if ((error as { code?: string }).code === "EEXIST") throw new CommandError(`${shown} already exists`);
    throw error;
  }
  return shown;
}

function templateName(value: string): TemplateName {
  if ((TEMPLATES as readonly string[]).includes(value)) return value as TemplateName;
  throw new InvalidArgumentError(`expected one of ${TEMPLATES.join(", ")}`);
}

/** Adds `genspider NAME DOMAIN`. */
export function addGenspiderCommand(program: Command, context: CommandContext): void {
  program
    .command("genspider <name> <domain>")
    .description("write a new spider file from a template")
    .option("-t, --template <name>", `the template: ${TEMPLATES.join(", ")}`, templateName, "basic" as TemplateName)
    .addHelpText("after", HELP_AFTER)
    .action(async (name: string, domain: string, options: { template: TemplateName }) => {
      const path = await generateSpider(name, domain, options.template);
      context.out(`Created spider ${name} (template ${options.template}) in ${path}\n`);
    });
}
