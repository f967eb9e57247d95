/**
 * Reads until `ok` holds or about five seconds pass, and answers the last value read: the assertion that
 * follows then says what was seen. For what lands off the request path (buffered clicks, webhooks).
 */
export async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let i = 0; i < 100 && !ok(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}
