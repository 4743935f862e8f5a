/**
 * Job alerts: when a job starts (if asked) and when it ends, its webhook is called with alert_payload.ts's payload.
 * A job's webhook is its `alert_webhook` setting (given at schedule time, by its periodic schedule, or by the
 * spider's own settings, which schedule.json copies into the job), else the service's (--alert-webhook); the
 * setting given as null turns the service's off for that job. An alert is kept in the outbox (alert_outbox.ts, in
 * jobs.db) until its webhook takes it, and delivered on its own (webhooks.ts): the job runner hands the job over and
 * carries on.
 */
import { Settings } from "../settings/settings.ts";
import { AlertOutbox } from "./alert_outbox.ts";
import type { Logger } from "../spider/types.ts";
import { type AlertEvent, alertPayload } from "./alert_payload.ts";
import type { JobRecord } from "./types.ts";
import { type WebhookOptions, WebhookSender } from "./webhooks.ts";

/** What the job runner tells about jobs: alerts listen to it. */
export interface JobEvents {
  /** The job's process has started. */
  started(job: JobRecord): void;
  /**
   * The job is finished (any outcome), with the stats it left (read before the job can be forgotten and its files
   * deleted; null when it left none).
   */
  ended(job: JobRecord, stats: Record<string, unknown> | null): void;
}

export interface JobAlertsOptions {
  nodeName: string;
  /** The service-wide webhook (--alert-webhook), for jobs that do not name their own. */
  webhook?: string;
  /** Call the service-wide webhook when jobs start too (--alert-start). */
  alertStart?: boolean;
  log: Logger;
  /** Where alerts wait until delivered: jobs.db's, so they outlive a restart (an in-memory one when not given). */
  outbox?: AlertOutbox;
  /** Tries, timeouts and bounds (webhooks.ts's defaults otherwise). */
  delivery?: Omit<WebhookOptions, "log" | "outbox">;
}

const ALERT_PAIR = /^(alert_webhook|alertWebhook|alert_start|alertStart)\s*=/;

/** The webhook and start flag a job's settings give (undefined where they give none; the webhook null when off). */
function jobAlertSettings(job: JobRecord): { webhook?: string | null; start?: boolean } {
  const pairs = job.settings.filter((pair) => ALERT_PAIR.test(pair));
  if (pairs.length === 0) return {};
  try {
    const given = Settings.fromPairs(pairs);
    return { webhook: given.given("alertWebhook"), start: given.given("alertStart") };
  } catch {
    // Checked when the job was scheduled; a job stored by an older service with a bad value gets no alert of its own.
    return {};
  }
}

/** Alerts for the jobs of one service. */
export class JobAlerts implements JobEvents {
  readonly #options: JobAlertsOptions;
  readonly #sender: WebhookSender;
  /** The outbox this made itself (no outbox given), closed with it. */
  readonly #ownOutbox: AlertOutbox | undefined;
  constructor(options: JobAlertsOptions) {
    this.#options = options;
    this.#ownOutbox = options.outbox ? undefined : new AlertOutbox(":memory:");
    const outbox = options.outbox ?? this.#ownOutbox!;
    this.#sender = new WebhookSender({ ...options.delivery, outbox, log: options.log });
  }

  /** Starts delivering the alerts a service before this one left undelivered. */
  resume(): void {
    this.#sender.resume();
  }

  /** How many alerts wait for their webhook (/metrics). */
  undelivered(): number {
    return this.#sender.queued();
  }

  /** The webhook a job's alerts go to, or undefined when it has none. */
  webhookOf(job: JobRecord): string | undefined {
    const own = jobAlertSettings(job).webhook;
    if (own === null) return undefined;
    return own ?? this.#options.webhook;
  }

  started(job: JobRecord): void {
    if (jobAlertSettings(job).start ?? this.#options.alertStart ?? false) this.#fire("started", job, null);
  }

  ended(job: JobRecord, stats: Record<string, unknown> | null): void {
    this.#fire("ended", job, stats);
  }

  /**
   * Stops delivering: waits for tries under way at most `limitMs`; what is not delivered stays in the outbox for the
   * next start. Call it before the outbox is closed.
   */
  async stop(limitMs: number): Promise<void> {
    await this.#sender.stop(limitMs);
    this.#ownOutbox?.close();
  }

  #fire(event: AlertEvent, job: JobRecord, stats: Record<string, unknown> | null): void {
    const url = this.webhookOf(job);
    if (url === undefined) return;
    const what = `job ${job.id} ${event}`;
    try {
      void this.#sender.send(url, alertPayload(event, job, this.#options.nodeName, stats), what);
    } catch (error) {
      // Building the payload cannot fail on a job the store gave; if it did, the job's end must still be recorded.
      this.#options.log.error(`alert for ${what} could not be sent: ${(error as Error).message}`);
    }
  }
}
