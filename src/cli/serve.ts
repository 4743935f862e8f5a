/** Runs `netweir serve` until a signal stops it. */
import { createLogger } from "../log.ts";
import { runtime, type StopSignal } from "../runtime/mod.ts";
import { checkServeOptions, type RawServeOptions } from "../serve/options.ts";
import { startService } from "../serve/service.ts";

export async function runServe(flags: RawServeOptions): Promise<number> {
  const options = checkServeOptions(flags, (name) => runtime.env(name));
  const log = createLogger("info");
  if (flags.password !== undefined) {
    log.warning("--password can be read by every user of this machine (ps, /proc); prefer NETWEIR_SERVE_PASSWORD");
  }
  if (flags.alertWebhook !== undefined) {
    log.warning(
      "--alert-webhook can be read by every user of this machine (ps, /proc); prefer NETWEIR_SERVE_ALERT_WEBHOOK",
    );
  }
  const service = await startService(options, log);
  const { promise: stopped, resolve } = Promise.withResolvers<void>();
  let signals = 0;
  const onSignal = (signal: StopSignal) => () => {
    signals++;
    log.info(signals === 1 ? `${signal}: stopping; running jobs are cancelled` : `${signal}: killing running jobs`);
    service.close().then(() => resolve(), () => resolve());
  };
  const removers = (["SIGINT", "SIGTERM"] as const).map((signal) => runtime.onSignal(signal, onSignal(signal)));
  try {
    await stopped;
  } finally {
    for (const remove of removers) remove();
  }
  log.info("stopped");
  return 0;
}
