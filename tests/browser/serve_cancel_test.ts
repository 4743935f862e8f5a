/** A rendering job under `netweir serve`: cancelled while it renders, it leaves no Chromium behind. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startCli } from "../helpers/cli.ts";
import { runCommand } from "../helpers/command.ts";
import { chromiumOf, descendants, processes, waitGone } from "../helpers/chromium.ts";
import { startJsSite } from "../helpers/js_site.ts";
import { withTempDir } from "../cli/_run.ts";
import { waitUntil } from "../helpers/wait.ts";

const PROJECT = fileURLToPath(new URL("./fixtures", import.meta.url));

Deno.test("a rendering job cancelled in netweir serve leaves no Chromium process", async () => {
  const site = await startJsSite({ products: 300, perPage: 10 });
  await withTempDir(async (dir) => {
    const serve = startCli(["serve", "--project", `js=${PROJECT}`, "--port", "0", "--dir", join(dir, "serve")], {
      timeoutMs: 120_000,
    });
    try {
      const line = await serve.waitFor(/serving \S+ at (http:\/\/\S+\/) /, 30_000);
      const url = `http://127.0.0.1:${new URL(/at (http:\/\/\S+\/)/.exec(line)![1]).port}/`;
      const post = async (endpoint: string, form: Record<string, string>) =>
        await (await fetch(url + endpoint, { method: "POST", body: new URLSearchParams(form) })).json();
      const scheduled = await post("schedule.json", { project: "js", spider: "JsShop", site: site.url, slow: "1" });
      assert.equal(scheduled.status, "ok", JSON.stringify(scheduled));
      const job = String(scheduled.jobid);
      const pid = await waitUntil("the job runs", async () => {
        const listed = await (await fetch(url + "listjobs.json")).json();
        return listed.running.find((running: { id: string }) => running.id === job)?.pid as number | undefined;
      });
      const browsers = await waitUntil("the job's Chromium runs", async () => {
        const found = chromiumOf(descendants(await processes(), pid));
        return found.length >= 2 ? found : undefined;
      });
      const cancelled = await post("cancel.json", { project: "js", job });
      assert.equal(cancelled.prevstate, "running");
      await waitUntil("the job has ended", async () => {
        const listed = await (await fetch(url + "listjobs.json")).json();
        return listed.finished.some((finished: { id: string }) => finished.id === job) || undefined;
      });
      // The crawl stopped cleanly, closing its browser itself; serve's SIGKILL to the job's group is only the net.
      const log = await (await fetch(url + `logs/js/JsShop/${job}.log`)).text();
      assert.match(log, /"finish_reason":"shutdown"/, log);
      const left = await waitGone(browsers.map((process) => process.pid), 5000);
      if (left.length > 0) {
        const ps = (await runCommand("ps", ["-o", "pid,ppid,pgid,stat,comm", "-p", left.join(",")])).stdout;
        assert.fail(`Chromium processes still running after the job ended:\n${ps}\njob log:\n${log}`);
      }
    } finally {
      await serve.kill("SIGINT").catch(() => {});
      await serve.wait();
      await site.close();
    }
  });
});
