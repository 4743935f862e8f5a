/**
 * A reader of scrapyd's HTML pages written from ScrapydWeb's (scrapydweb/views/dashboard/jobs.py, views/files/logs.py
 * and vars.py): the same checks before it reads a page, the same row patterns, the same fields, and the same way of
 * telling a job's state (no start: pending; a start but no finish: running; else finished). If ScrapydWeb could not
 * read a page of `netweir serve`, neither can this.
 */

/** One job as ScrapydWeb takes it from /jobs. */
export interface ScrapydWebJob {
  project: string;
  spider: string;
  job: string;
  pid: string;
  start: string;
  runtime: string;
  finish: string;
  href_log: string;
  href_items: string;
}

/** One row of a /logs/ or /items/ listing. */
export interface ScrapydWebRow {
  odd_even: string;
  href: string;
  filename: string;
  size: string;
  last_modified: string;
  content_type: string;
  content_encoding: string;
}

// ScrapydWeb's JOB_PATTERN (re.X): the first nine cells of a row, each optional after Job, then anything up to </tr>.
// `.` does not cross a line there (no re.S), so each cell must be on one line.
const JOB_PATTERN = new RegExp(
  String.raw`<tr>\s*<td>(.*?)</td>\s*<td>(.*?)</td>\s*<td>(.*?)</td>\s*` +
    String.raw`(?:<td>(.*?)</td>\s*)?(?:<td>(.*?)</td>\s*)?(?:<td>(.*?)</td>\s*)?(?:<td>(.*?)</td>\s*)?` +
    String.raw`(?:<td>(.*?)</td>\s*)?(?:<td>(.*?)</td>\s*)?[\w\W]*?</tr>`,
  "g",
);
const JOB_KEYS = ["project", "spider", "job", "pid", "start", "runtime", "finish", "href_log", "href_items"] as const;

// ScrapydWeb's DIRECTORY_PATTERN (re.X): a row of class odd or even, five cells one a line (Last modified optional).
const DIRECTORY_PATTERN = new RegExp(
  String.raw`<tr\sclass="(odd|even)">\n\s+<td>(.*?)</td>\n\s+<td>(.*?)</td>\n(?:\s+<td>(.*?)</td>\n)?` +
    String.raw`\s+<td>(.*?)</td>\n\s+<td>(.*?)</td>\n</tr>`,
  "g",
);
const HREF_NAME_PATTERN = /href="(.+?)">(.+?)</;
const HREF_PATTERN = /href=['"](.+?)['"]/;

/** The jobs of a /jobs page; throws where ScrapydWeb would show its "can't reach Scrapyd" page instead. */
export function parseJobsPage(status: number, text: string): ScrapydWebJob[] {
  if (status !== 200 || !/<h1>Jobs<\/h1>/.test(text)) {
    throw new Error(`ScrapydWeb would not read this page (${status})`);
  }
  const body = text.replace(/<thead>[\s\S]*?<\/thead>/g, "");
  return [...body.matchAll(JOB_PATTERN)].map((match) =>
    Object.fromEntries(JOB_KEYS.map((key, i) => [key, match[i + 1] ?? ""])) as unknown as ScrapydWebJob
  );
}

/** The state ScrapydWeb gives a job of the /jobs page. */
export function jobState(job: ScrapydWebJob): "pending" | "running" | "finished" {
  if (!job.start) return "pending";
  return job.finish ? "finished" : "running";
}

/** The URL in a job's Log or Items cell, as ScrapydWeb takes it out (HREF_PATTERN), or "" when there is none. */
export function cellHref(cell: string): string {
  return HREF_PATTERN.exec(cell)?.[1] ?? "";
}

/** The rows of a /logs/ or /items/ listing, `which` being "logs" or "items". */
export function parseListing(status: number, text: string, which: "logs" | "items"): ScrapydWebRow[] {
  if (status !== 200 || !new RegExp(`Directory listing for /${which}/`).test(text)) {
    throw new Error(`ScrapydWeb would not read this listing (${status})`);
  }
  return [...text.matchAll(DIRECTORY_PATTERN)].map((match) => {
    const [href, filename] = HREF_NAME_PATTERN.exec(match[2])!.slice(1);
    return {
      odd_even: match[1],
      href,
      filename,
      size: match[3],
      last_modified: match[4] ?? "",
      content_type: match[5],
      content_encoding: match[6],
    };
  });
}
