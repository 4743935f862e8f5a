import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { settingsMarkdown } from "../../scripts/gen_settings_doc.ts";
import { SETTINGS } from "../../src/settings/table.ts";

const PAGE = new URL("../../docs/settings.md", import.meta.url);

/** The page's words in order: `deno fmt` may re-wrap lines, which changes nothing a reader sees. */
function words(text: string): string[] {
  return text.split(/\s+/).filter((word) => word !== "");
}

Deno.test("docs/settings.md is what scripts/gen_settings_doc.ts generates from the settings table now", async () => {
  const onDisk = await readFile(PAGE, "utf8");
  assert.deepEqual(
    words(onDisk),
    words(settingsMarkdown()),
    "docs/settings.md is out of date: run `deno run -A scripts/gen_settings_doc.ts`",
  );
});

Deno.test("the generated settings page names every setting in both spellings with its default", () => {
  const page = settingsMarkdown();
  for (const row of SETTINGS) {
    const entry = page.split("\n- ").find((part) => part.startsWith(`**\`${row.cli}\`**`));
    assert.ok(entry, `no entry for ${row.cli}`);
    assert.ok(entry.includes(`TypeScript \`${row.key}\``), `${row.cli} lacks its TypeScript name`);
    assert.ok(entry.replace(/\s+/g, " ").includes(`default \`${JSON.stringify(row.default)}\``), `${row.cli} default`);
  }
});

Deno.test("settings whose feature is built are not marked not available yet", () => {
  const page = settingsMarkdown();
  const entryOf = (cli: string) =>
    page.split("\n- ").find((part) => part.startsWith(`**\`${cli}\`**`))!.replace(/\s+/g, " ");
  for (
    const cli of [
      "concurrency",
      "per_domain",
      "max_items",
      "proxies",
      "stats_file",
      "queue",
      "cache",
      "workers",
      "browser_path",
      "browser_tabs",
    ]
  ) {
    assert.doesNotMatch(entryOf(cli), /Not available yet/, cli);
  }
});
