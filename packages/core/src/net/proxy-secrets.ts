import type {ProxyEnv, ProxyVariable} from './proxy-env.js';

const VARIABLES: ProxyVariable[] = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'];

/**
 * The proxy passwords in the environment, each as written (percent-encoded), decoded, and inside the
 * `Basic` credentials it makes: values to mask, since docker and buildx (which get the proxy variables) or an
 * error may print a proxy URL whole. A value that does not parse is searched for `user:password@` as text.
 */
export function proxySecrets(env: ProxyEnv): string[] {
  const secrets = new Set<string>();
  for (const variable of VARIABLES) {
    const value = env[variable]?.trim();
    if (!value) continue;
    const userinfo = /^(?:[a-z][a-z0-9+.-]*:\/\/)?([^@]*)@/i.exec(value)?.[1];
    if (userinfo === undefined) continue;
    const colon = userinfo.indexOf(':');
    if (colon < 0) continue;
    const password = userinfo.slice(colon + 1);
    if (password === '') continue;
    secrets.add(password);
    const decoded = decode(password);
    secrets.add(decoded);
    secrets.add(Buffer.from(`${decode(userinfo.slice(0, colon))}:${decoded}`).toString('base64'));
  }
  return [...secrets];
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
