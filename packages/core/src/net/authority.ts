import {isIP} from 'node:net';

/** `host:port`, IPv6 addresses in brackets. */
export function authority(host: string, port: number): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return isIP(bare) === 6 ? `[${bare}]:${port}` : `${bare}:${port}`;
}
