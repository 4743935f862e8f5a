/**
 * The spider of the current project for a URL, for `fetch`, `parse` and `shell` run in a project without
 * `--spider-file`, as Scrapy's commands find theirs: in a project made by `startproject` (deno.json or package.json
 * beside a spiders/ directory), the one spider whose `allowedDomains` hold the URL's host. None when there is no
 * project, no such spider, or more than one (then the command says so with --log-level info and uses none).
 */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { loadSpiders } from "../load/spiders.ts";
import { spiderFiles } from "../load/spider_files.ts";
import { runtime } from "../runtime/mod.ts";
import { hostInDomains } from "../spider/host_in_domain.ts";
import type { SpiderClass } from "../spider/spider.ts";

async function exists(path: string): Promise<boolean> {
  return await stat(path).then(() => true, () => false);
}

/** A project's spider for a URL, with the file it came from. */
export interface ProjectSpider {
  file: string;
  spiderClass: SpiderClass;
}

/** The current project's one spider for `url`, or undefined (see the module's comment). */
export async function projectSpiderFor(url: string): Promise<ProjectSpider | undefined> {
  const cwd = runtime.cwd();
  const project = await exists(join(cwd, "deno.json")) || await exists(join(cwd, "package.json"));
  const host = URL.parse(url)?.hostname;
  if (!project || !host || !(await stat(join(cwd, "spiders")).then((info) => info.isDirectory(), () => false))) {
    return undefined;
  }
  const found: ProjectSpider[] = [];
  for (const file of await spiderFiles("spiders")) {
    // A file that does not load is `netweir list`'s to report; here it only cannot be the one.
    const classes = await loadSpiders(file).catch(() => [] as SpiderClass[]);
    for (const spiderClass of classes) {
      const domains = new spiderClass().allowedDomains;
      if (hostInDomains(host, domains)) found.push({ file, spiderClass });
    }
  }
  return found.length === 1 ? found[0] : undefined;
}
