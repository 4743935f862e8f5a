/**
 * The projects `netweir serve` runs: each --project NAME=PATH (or bare PATH) checked once at start-up. Their spiders
 * come from the {@link SpiderCatalog}: the listing of a project's files is taken on every request, and only files
 * that changed since they were last read are read again, all in one child process, so an edited spider is seen at
 * once, a file that crashes or hangs on import is reported by name instead of taking the service down, and an
 * unchanged project costs a few `stat` calls.
 */
import { statSync } from "node:fs";
import { basename, dirname, extname, relative, resolve } from "node:path";
import { spiderFiles } from "../load/spider_files.ts";
import { selfCli } from "../runtime/self_cli.ts";
import { maskSecrets } from "../log.ts";
import { isServeName, NAME_RULE } from "./names.ts";
import { SpiderCatalog } from "./spider_catalog.ts";
import type { Project, ProjectRegistry, ProjectSpider } from "./types.ts";

/** Splits `NAME=PATH` or a bare PATH into a name and a path; a bare PATH is named after its file or directory. */
function parseSpec(spec: string): { name: string; path: string; explicit: boolean } {
  const eq = spec.indexOf("=");
  if (eq >= 0) return { name: spec.slice(0, eq), path: spec.slice(eq + 1), explicit: true };
  // "spiders/" and "spiders" both name the directory; "news/feeds.ts" is named "feeds".
  const base = basename(spec.replace(/[\\/]+$/, ""));
  return { name: base.slice(0, base.length - extname(base).length) || base, path: spec, explicit: false };
}

/** How long one spider file may take to import before it is reported as hanging. */
export const DEFAULT_IMPORT_TIMEOUT_MS = 10_000;

function checkProject(spec: string, cwd: string): Project {
  const { name, path, explicit } = parseSpec(spec);
  if (path === "") throw new TypeError(`--project ${spec}: no path given (use NAME=PATH or PATH)`);
  if (!isServeName(name)) {
    const hint = explicit ? "" : `; name it yourself with --project NAME=${path}`;
    throw new TypeError(`--project ${spec}: project name ${JSON.stringify(name)} must be ${NAME_RULE}${hint}`);
  }
  const absolute = resolve(cwd, path);
  const info = (() => {
    try {
      return statSync(absolute);
    } catch {
      return undefined;
    }
  })();
  if (!info) throw new TypeError(`--project ${spec}: no such file or directory: ${path}`);
  if (!info.isFile() && !info.isDirectory()) {
    throw new TypeError(`--project ${spec}: ${path} is neither a spider file nor a directory`);
  }
  return { name, path: absolute, dir: info.isDirectory() ? absolute : dirname(absolute) };
}

/**
 * Checks the --project options and returns the registry of served projects.
 *
 * @param specs "NAME=PATH" or a bare PATH (named after the file without its extension, or the directory).
 * @param cwd what relative paths are relative to.
 * @param options.catalog where what the files declared is kept (a new one reading through `netweir` by default).
 * @throws TypeError for a bad or duplicate name (names ignore case) or a path that does not exist.
 */
export function createProjectRegistry(
  specs: readonly string[],
  cwd: string,
  options: { catalog?: SpiderCatalog } = {},
): ProjectRegistry {
  const catalog = options.catalog ??
    new SpiderCatalog({ cli: selfCli(), importTimeoutMs: DEFAULT_IMPORT_TIMEOUT_MS });
  const projects = new Map<string, Project>();
  for (const spec of specs) {
    const project = checkProject(spec, cwd);
    const key = project.name.toLowerCase();
    const taken = projects.get(key);
    if (taken) {
      throw new TypeError(
        `--project ${spec}: the name ${project.name} is already taken by ${taken.path} (project names ignore case)`,
      );
    }
    projects.set(key, project);
  }

  const get = (name: string) => projects.get(name.toLowerCase());

  return {
    names: () => [...projects.values()].map((project) => project.name),
    get,
    async spiders(name: string) {
      const project = get(name);
      if (!project) throw new RangeError(`no project named ${JSON.stringify(name)}`);
      // A name as the user sees it: relative to the project's directory (just the file name, for top-level files).
      const label = (file: string) => relative(project.dir, resolve(project.dir, file)) || basename(file);
      let files: string[];
      try {
        files = await spiderFiles(project.path);
      } catch (error) {
        // The directory went away while serving: say so instead of failing the request.
        const message = error instanceof Error ? error.message : String(error);
        return { spiders: [], errors: [{ file: basename(project.path), error: message }] };
      }
      const spiders: ProjectSpider[] = [];
      const errors: { file: string; error: string }[] = [];
      const absolute = files.map((file) => resolve(project.dir, file));
      for (const result of await catalog.describe(absolute, project.dir)) {
        const file = resolve(project.dir, result.file);
        if ("error" in result) {
          errors.push({ file: label(file), error: maskSecrets(result.error) });
          continue;
        }
        for (const spider of result.spiders) {
          spiders.push({ name: spider.name, file, settings: spider.settings, profiles: spider.profiles });
        }
      }
      return { spiders, errors };
    },
  };
}
