/** True for an absolute http: or https: URL with a host: the only destinations a link may carry. */
export function isHttpUrl(value: string): boolean {
  if (value.length > 8192 || value.trim() !== value) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname.length > 0;
}
