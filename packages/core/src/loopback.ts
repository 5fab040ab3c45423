import {isIP} from 'node:net';

/**
 * True for localhost, 127.0.0.0/8 and ::1 only: the hosts plain http may reach with the key. Not *.localhost:
 * RFC 6761 lets resolvers send it to loopback, but nothing makes every resolver (or a proxy) do so.
 */
export function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || h === '0:0:0:0:0:0:0:1';
  return false;
}
