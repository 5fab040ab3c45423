import type {Logger} from './logger.js';

/**
 * Registers a secret with the logger: the whole value and each non-trivial line, because the runner
 * masks line by line and a PEM key is printed one line at a time.
 */
export function registerSecret(logger: Logger, value: string): void {
  const trimmed = value.trim();
  if (trimmed === '') return;
  logger.setSecret(trimmed);
  for (const line of trimmed.split(/\r?\n/)) {
    const l = line.trim();
    // Armor lines like "-----BEGIN PRIVATE KEY-----" are public and would mask harmless text.
    if (l.length >= 8 && !/^-----(BEGIN|END) [A-Z0-9 ]+-----$/.test(l)) logger.setSecret(l);
  }
}
