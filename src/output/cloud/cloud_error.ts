/**
 * A cloud store that refuses or cannot be reached: missing credentials, a bucket that is not there, an upload that
 * failed. A failure at run time, so the command line exits 1 with its message as the one line. Messages never carry
 * a secret: they name where credentials came from, never the credentials.
 */
export class CloudError extends Error {
  override name = "CloudError";
}
