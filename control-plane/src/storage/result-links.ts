/** Download URLs for stored result files: usable without an API key by anyone holding them, until the files expire. */
export interface ResultLinks {
  /** A URL for the stored file `key` (`<job_id>/<file name>`) that stops working at `expiresAt`. */
  url(key: string, expiresAt: Date, baseUrl: string): Promise<string>;
}
