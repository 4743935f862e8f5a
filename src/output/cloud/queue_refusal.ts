/** The one place that refuses cloud output with a shared queue, for the command line and runSpider() alike. */
import { UsageError } from "../../errors.ts";
import { isCloudPath } from "./cloud_url.ts";

/**
 * Refuses output that is only uploaded when it closes (s3://, gs://) together with a shared queue: a killed process
 * would lose items whose pages the queue already counts as done.
 */
export function refuseCloudOutputWithQueue(outputs: readonly string[], queue: string | null): void {
  const cloud = outputs.find(isCloudPath);
  if (queue !== null && cloud) {
    throw new UsageError(
      `${cloud}: s3:// and gs:// output does not mix with a shared queue (a killed process would lose items ` +
        "the queue counts as done); write locally and upload when the crawl is over",
    );
  }
}
