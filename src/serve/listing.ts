/**
 * `/logs/` and `/items/` as scrapyd 1.6 serves them: Twisted's static directory listing with scrapyd's "Last
 * modified" column, down to the files. Dashboards find logs and items through these pages (ScrapydWeb checks for
 * "Directory listing for /logs/" and reads each row's five cells, one a line), so the markup is scrapyd's: rows
 * alternating `odd` and `even`, directories first, sizes as Twisted formats them (`512B`, `3K`, `1M`), times to the
 * minute in local time, and the content type in brackets.
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { escapeHtml } from "./html.ts";
import { isServeName } from "./names.ts";

/** Twisted's formatFileSize. */
export function twistedSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 ** 2) return `${Math.floor(bytes / 1024)}K`;
  if (bytes < 1024 ** 3) return `${Math.floor(bytes / 1024 ** 2)}M`;
  return `${Math.floor(bytes / 1024 ** 3)}G`;
}

/** "2024-01-02 03:04", local time, as scrapyd's listing prints a modification time. */
function minutes(epochMs: number): string {
  const date = new Date(epochMs);
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** scrapyd serves logs and items with text/plain as the default type; .json is the one other type under --dir. */
function contentType(name: string): string {
  return name.endsWith(".json") ? "application/json" : "text/plain";
}

interface Row {
  href: string;
  text: string;
  size: string;
  modified: string;
  type: string;
}

async function rows(folder: string, depthLeft: number): Promise<Row[] | undefined> {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => undefined);
  if (!entries) return undefined;
  const dirs: Row[] = [];
  const files: Row[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const info = await stat(join(folder, entry.name)).catch(() => undefined);
    if (!info) continue; // gone since the listing (a job forgotten meanwhile)
    const name = escapeHtml(entry.name);
    const href = encodeURIComponent(entry.name);
    if (info.isDirectory() && depthLeft > 0 && isServeName(entry.name)) {
      dirs.push({ href: `${href}/`, text: `${name}/`, size: "", modified: minutes(info.mtimeMs), type: "[Directory]" });
    } else if (info.isFile() && depthLeft === 0) {
      const type = `[${contentType(entry.name)}]`;
      files.push({ href, text: name, size: twistedSize(info.size), modified: minutes(info.mtimeMs), type });
    }
  }
  return [...dirs, ...files];
}

/**
 * The listing of `root/...parts` (parts already checked names), or undefined when there is no such folder. `parts`
 * is empty for the top (`/logs/`: projects), one name for a project (its spiders), two for a spider (its files).
 */
export async function renderListing(root: string, urlBase: string, parts: string[]): Promise<string | undefined> {
  if (parts.length > 2 || !parts.every(isServeName)) return undefined;
  const found = await rows(join(root, ...parts), 2 - parts.length);
  if (!found) return parts.length === 0 ? renderPage(`${urlBase}/`, []) : undefined;
  return renderPage(`${urlBase}/${parts.map((part) => `${part}/`).join("")}`, found);
}

function renderPage(path: string, found: Row[]): string {
  const header = `Directory listing for ${escapeHtml(path)}`;
  const lines = found.map((row, index) =>
    `<tr class="${index % 2 === 0 ? "odd" : "even"}">\n` +
    `    <td><a href="${row.href}">${row.text}</a></td>\n` +
    `    <td>${row.size}</td>\n` +
    `    <td>${row.modified}</td>\n` +
    `    <td>${row.type}</td>\n` +
    `    <td></td>\n` +
    `</tr>\n`
  ).join("");
  return `<html>
<head>
<title>${header}</title>
<style>
.even-dir { background-color: #efe0ef }
.even { background-color: #eee }
.odd-dir {background-color: #f0d0ef }
.odd { background-color: #dedede }
.icon { text-align: center }
.listing { margin-left: auto; margin-right: auto; width: 50%; padding: 0.1em; }
body { border: 0; padding: 0; margin: 0; background-color: #efefef; }
h1 {padding: 0.1em; background-color: #777; color: white; border-bottom: thin white dashed;}
</style>
</head>

<body>
<h1>${header}</h1>

<table>
    <thead>
        <tr>
            <th>Filename</th>
            <th>Size</th>
            <th>Last modified</th>
            <th>Content type</th>
            <th>Content encoding</th>
        </tr>
    </thead>
    <tbody>
${lines}    </tbody>
</table>

</body>
</html>
`;
}
