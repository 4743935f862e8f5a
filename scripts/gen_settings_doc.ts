/**
 * Writes docs/settings.md from the one settings table (src/settings/table.ts), so the page can never disagree with
 * what `-s`, `new Settings({...})` and the start-of-crawl checks accept. tests/docs/settings_doc_test.ts fails when
 * the page in the repo is not what this script would write now.
 *
 *   deno run -A scripts/gen_settings_doc.ts
 */
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { SettingsError } from "../src/errors.ts";
import { checkSettings } from "../src/settings/check.ts";
import { BUILTIN_PROFILES } from "../src/settings/profiles.ts";
import { Settings } from "../src/settings/settings.ts";
import { SCRAPY_SETTINGS } from "../src/settings/scrapy_settings.ts";
import { SETTINGS, type SettingValues } from "../src/settings/table.ts";
import type { SettingDefinition, SettingType } from "../src/settings/types.ts";

/** Where the page goes, relative to this script. */
const OUTPUT = new URL("../docs/settings.md", import.meta.url);

/**
 * Section headings, each before the setting that opens it in the table. The table keeps its groups only as
 * comments; a row added inside a group lands under that group's heading without a change here.
 */
const SECTIONS: Readonly<Record<string, string>> = {
  concurrency: "Scheduling and politeness",
  timeout: "Downloading",
  maxItems: "Limits",
  profile: "Profiles",
  queue: "Shared queue",
  checkpoint: "State, archives and workers",
  browserPath: "Browser",
  logLevel: "Logs and stats",
};

/**
 * Settings that only matter together with another one: while that one is not available, neither is this one (the
 * crawl accepts them, but nothing reads them yet).
 */
const BELONGS_TO: Readonly<Record<string, string>> = {
  queueKey: "queue",
  queueIdle: "queue",
  queueLease: "queue",
  browserTabs: "browserPath",
};

const TYPE_NAMES: Readonly<Record<SettingType, string>> = {
  int: "whole number",
  float: "number",
  bool: "true or false",
  string: "text",
  strings: "list of text",
  ints: "list of whole numbers",
  headers: "JSON object of header names to values",
  "auth-map": "HOST=USER:PASSWORD list, or a JSON object",
  object: "JSON object",
  hosts: "JSON object of host patterns to settings",
};

/** A value of the row's type that differs from its default, to ask the start-of-crawl checks about. */
function sampleValue(row: SettingDefinition): unknown {
  if (row.choices) return row.choices.find((choice) => choice !== row.default) ?? row.choices[0];
  switch (row.type) {
    case "int":
    case "float":
      return typeof row.default === "number" ? row.default + 1 : 1;
    case "bool":
      return row.default !== true;
    case "string":
      return "x";
    case "strings":
      return ["http://127.0.0.1:1/"];
    case "ints":
      return [599];
    case "headers":
      return { "x-sample": "1" };
    case "auth-map":
      return { "example.com": { user: "u", password: "p" } };
    case "object":
      return {};
    case "hosts":
      return { "example.com": { perDomain: 1 } };
  }
}

/**
 * Whether the crawl refuses a value for this setting because its feature is not built: marked so in the table, or
 * refused as "not available yet" by the start-of-crawl checks (asked, not assumed, so the page follows the code).
 */
function refusedAsUnavailable(row: SettingDefinition): boolean {
  if (row.unavailable) return true;
  const values = new Settings().resolve() as Record<string, unknown>;
  values[row.key] = sampleValue(row);
  try {
    checkSettings(values as SettingValues);
  } catch (error) {
    return error instanceof SettingsError && error.setting === row.cli && /not available yet/.test(error.message);
  }
  return false;
}

function rowByKey(key: string): SettingDefinition | undefined {
  return SETTINGS.find((row) => row.key === key);
}

/** Why a setting is not available yet, or undefined when it is. */
function unavailableNote(row: SettingDefinition): string | undefined {
  if (refusedAsUnavailable(row)) return "Not available yet: a value other than the default is refused.";
  const owner = BELONGS_TO[row.key] !== undefined ? rowByKey(BELONGS_TO[row.key]) : undefined;
  if (owner && refusedAsUnavailable(owner)) {
    return `Not available yet: accepted, but it takes effect only with \`${owner.cli}\`, which is not available yet.`;
  }
  return undefined;
}

/** The row's own check in words ("must be at least 1"), found by asking it about a value below any bound. */
function constraint(row: SettingDefinition): string | undefined {
  if (!row.check) return undefined;
  const probe = row.type === "strings" ? ["?"] : row.type === "int" || row.type === "float" ? -Infinity : undefined;
  if (probe === undefined) return undefined;
  try {
    return row.check(probe) || undefined;
  } catch {
    return undefined;
  }
}

function code(text: string): string {
  return "`" + text + "`";
}

function typeText(row: SettingDefinition): string {
  const base = row.choices ? `one of ${row.choices.map(code).join(", ")}` : TYPE_NAMES[row.type];
  return row.nullable ? `${base}, or null` : base;
}

function sentence(text: string): string {
  const trimmed = text.trim();
  const first = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(first) ? first : first + ".";
}

function entry(row: SettingDefinition): string {
  const head = `**${code(row.cli)}** (TypeScript ${code(row.key)}): ${typeText(row)}, default ` +
    `${code(JSON.stringify(row.default))}.`;
  const parts = [sentence(row.doc)];
  const limit = constraint(row);
  if (limit) parts.push(sentence(limit));
  const note = unavailableNote(row);
  if (note) parts.push(`_${note}_`);
  return wrap(`${head} ${parts.join(" ")}`, "- ", "  ");
}

/** Markdown's line width in this repo (deno.json "fmt.lineWidth"), so `deno fmt` leaves the page as it is. */
const LINE_WIDTH = 120;

/**
 * Fills lines up to LINE_WIDTH the way `deno fmt` wraps prose: words separated by single spaces, an inline code
 * span never split. `first` goes before the first line and `indent` before the others.
 */
function wrap(text: string, first: string, indent: string): string {
  const words = text.match(/(?:`[^`]*`|[^\s`])+/g) ?? [];
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of words) {
    if (!empty && line.length + 1 + word.length > LINE_WIDTH) {
      lines.push(line);
      line = indent + word;
    } else {
      line += (empty ? "" : " ") + word;
    }
    empty = false;
  }
  lines.push(line);
  return lines.join("\n");
}

function profilesText(): string {
  return Object.entries(BUILTIN_PROFILES).map(([name, bundle]) => {
    const values = new Settings(bundle).toJSON();
    const pairs = Object.entries(values).map(([key, value]) => code(`${key}=${JSON.stringify(value)}`));
    return `- ${code(name)}: ${pairs.join(", ")}`;
  }).join("\n");
}

const INTRO = `# Settings

<!-- Generated by scripts/gen_settings_doc.ts from src/settings/table.ts. Do not edit by hand: change the table and
run \`deno run -A scripts/gen_settings_doc.ts\`. -->

Every setting lives in one table in the source, and this page is generated from it. Each setting has two names:
snake_case on the command line (\`-s max_items=500\`) and camelCase in TypeScript (\`new Settings({ maxItems: 500 })\`).
Both spellings are accepted everywhere. An unknown name is refused with the nearest known one as a hint
(\`unknown setting max_itemz (did you mean max_items?)\`), and a value of the wrong type is refused with the setting's
name. Durations are in seconds.

## Giving a value on the command line

\`-s KEY=VALUE\` (repeatable) parses VALUE by the setting's type:

- whole numbers and numbers: \`-s concurrency=4\`, \`-s min_delay=0.5\`;
- true or false: \`true\`, \`false\`, \`1\`, \`0\`, \`yes\`, \`no\`, \`on\` or \`off\`, in any case;
- lists: comma-separated (\`-s retry_http_codes=500,503\`) or a JSON array (\`-s 'proxies=["http://p1:8080"]'\`);
- headers: a JSON object (\`-s 'default_headers={"accept-language": "fr"}'\`);
- \`monitors\`: a JSON object (\`-s 'monitors={"min_items": 100}'\`);
- \`http_auth\`: \`HOST=USER:PASSWORD\` entries separated by commas, or a JSON object of \`{ "user", "password" }\`;
- settings that may be null: \`null\`, \`none\` or an empty value (\`-s max_depth=null\`).

\`netweir crawl\` also has four options that are settings under another name: \`--stats-file PATH\` is \`-s stats_file=PATH\`,
\`--log-level LEVEL\` is \`-s log_level=LEVEL\`, and \`--queue\` and \`--queue-key\` are \`queue\` and \`queue_key\`. They win over
the same setting given with \`-s\`.

## Where a crawl's settings come from

Lowest first; each layer overrides the ones before it:

1. the defaults below;
2. the profile named by the \`profile\` setting, if any;
3. the spider's own \`settings\` property;
4. \`-s\` on the command line (or \`settings\` given to \`runSpider()\` in code).

\`\`\`ts
// careful.ts
import { Settings, Spider } from "netweir";

export class Careful extends Spider {
  override settings = new Settings({ perDomain: 2, maxPages: 100, profile: "polite" });
}
\`\`\`

Run as \`netweir crawl careful.ts -s max_pages=10\`, this spider crawls with the \`polite\` profile, then \`per_domain=2\`
over the profile's \`per_domain=1\`, then \`max_pages=10\` over the spider's 100.

## Profiles

A profile is a named bundle of settings. The built-in ones:

PROFILES

A spider can define its own in its \`profiles\` property (\`profiles = { nightly: { maxTime: 3600 } }\`); one of its own
wins over a built-in profile of the same name. An unknown profile name is refused and the known ones are listed.

## Checks at the start of a crawl

Before anything is fetched, the crawl refuses (exit status 2 from \`netweir crawl\`, a \`SettingsError\` in code):

- an unknown setting, a value of the wrong type, or a value outside the setting's range;
- an unknown profile;
- \`min_delay\` above \`max_delay\`;
- \`proxy_rotation\` without \`proxies\`;
- any setting marked _not available yet_ below, when given a value other than its default.

The same checks are one function, \`resolveCrawlSettings()\`, exported from the library.

## All settings`;

/** The whole of docs/settings.md, as it should be now. */
export function settingsMarkdown(): string {
  const lines: string[] = [INTRO.replace("PROFILES", profilesText())];
  let open = false;
  for (const row of SETTINGS) {
    const heading = SECTIONS[row.key];
    if (heading !== undefined || !open) {
      lines.push("", `### ${heading ?? "General"}`, "");
      open = true;
    }
    lines.push(entry(row));
  }
  lines.push(...scrapyNamesSection());
  return lines.join("\n") + "\n";
}

/** The table of Scrapy's setting names and Netweir's, from src/settings/scrapy_settings.ts, padded as deno fmt pads it. */
function scrapyNamesSection(): string[] {
  const cells = SCRAPY_SETTINGS.map((row) => [
    `\`${row.scrapy}\``,
    row.netweir ? `\`${row.netweir}\`${row.note ? `, ${row.note}` : ""}` : row.note ?? "",
  ]);
  const widths = [0, 1].map((column) =>
    Math.max(...[["Scrapy", "Netweir"], ...cells].map((row) => row[column].length))
  );
  const line = (row: string[]) => `| ${row.map((cell, column) => cell.padEnd(widths[column])).join(" | ")} |`;
  return [
    "",
    "## Scrapy's names",
    "",
    "A Scrapy setting name is refused with Netweir's name for it (`unknown setting DOWNLOAD_DELAY, a Scrapy name; in " +
    "Netweir it is min_delay`), in any case, on the command line, over HTTP and in a spider's settings. They are not " +
    "translated, since some values differ in form or unit. Those with an equivalent:",
    "",
    line(["Scrapy", "Netweir"]),
    line(widths.map((width) => "-".repeat(width))),
    ...cells.map(line),
  ];
}

if (import.meta.main) {
  const path = fileURLToPath(OUTPUT);
  await writeFile(path, settingsMarkdown());
  console.log(`wrote ${path}`);
}
