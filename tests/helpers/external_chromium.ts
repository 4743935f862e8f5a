/**
 * A Chromium started by a test the way a user would run one for `browser_endpoint`: on a DevTools port
 * (`--remote-debugging-port`, 0 for any free one, read back from what it prints), with a profile of its own and a
 * tab of its own that the crawl must leave alone.
 *
 * It leads a process group of its own, which its helper processes (zygote, renderers, GPU and network services)
 * stay in, and it is ended by killing the whole group and waiting until none of them runs. Killing only the main
 * process left the helpers to notice and exit by themselves, still writing to the profile meanwhile: on a loaded
 * machine the profile's removal outlasted its retries and failed with ENOTEMPTY.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runtime } from "../../src/runtime/mod.ts";
import { processes } from "./chromium.ts";
import { waitUntil } from "./wait.ts";

export interface ExternalChromium {
  /** The browser's DevTools WebSocket, as it printed it. */
  ws: string;
  /** Its DevTools port, where /json/version answers. */
  port: number;
  /** The http://127.0.0.1:PORT address. */
  http: string;
  pid: number;
  /** Whether the process is still running. */
  running(): boolean;
  /** The addresses of the browser's own page targets (its tabs) now. */
  tabs(): Promise<string[]>;
  /** Kills it and its helpers with SIGKILL, waits for them to exit, and removes its profile. */
  close(): Promise<void>;
}

/** The tab the browser is started with, which the crawl must neither use nor close. */
export const OWN_TAB = "data:text/html,<title>mine</title>";

function started(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error(`Chromium did not say where it listens: ${text}`)), 30_000);
    child.stderr!.on("data", (chunk) => {
      text += chunk;
      const found = /DevTools listening on (ws:\/\/\S+)/.exec(text);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.once("exit", () => {
      clearTimeout(timer);
      reject(new Error(`Chromium exited at start: ${text}`));
    });
  });
}

/** Starts Chromium listening on `port` (0: any free one), with the profile in `profile` (made when not given). */
export async function startExternalChromium(port = 0, profile?: string): Promise<ExternalChromium> {
  const dir = profile ?? await mkdtemp(join(tmpdir(), "netweir-external-chromium-"));
  const child = spawn("/usr/bin/chromium", [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    // As puppeteer starts Chromium: pages may open windows, so the crawl's own popup guard is what stops them.
    "--disable-popup-blocking",
    `--user-data-dir=${dir}`,
    "--remote-debugging-address=127.0.0.1",
    `--remote-debugging-port=${port}`,
    OWN_TAB,
  ], { stdio: ["ignore", "ignore", "pipe"], detached: true });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // Every process of its group SIGKILLed, then waited for: the main one as this process's child, its helpers (handed
  // to init once the main one is gone, so not waited for here) until none is left running.
  const killGroup = async () => {
    if (child.pid === undefined) return; // never started: nothing to kill or wait for
    runtime.killProcessGroup(child.pid, "SIGKILL");
    await exited;
    await waitUntil(
      "Chromium's helper processes to exit",
      async () => !(await processes()).some((process) => process.pgid === child.pid),
      30_000,
      100,
    );
  };
  let ws: string;
  try {
    ws = await started(child);
  } catch (error) {
    await killGroup();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const listening = Number(new URL(ws).port);
  const http = `http://127.0.0.1:${listening}`;
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    ws,
    port: listening,
    http,
    pid: child.pid!,
    running,
    tabs: async () => {
      const list = await (await fetch(`${http}/json/list`)).json() as Array<{ type: string; url: string }>;
      return list.filter((target) => target.type === "page").map((target) => target.url);
    },
    close: async () => {
      await killGroup();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
