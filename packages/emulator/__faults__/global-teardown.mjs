// Adds up the secret-scan totals every suite recorded and prints them once for the whole faults run.
import {existsSync, readdirSync, readFileSync, rmSync} from 'node:fs';
import {join} from 'node:path';

export default function globalTeardown() {
  const dir = process.env.FAULTS_SCAN_DIR;
  if (!dir || !existsSync(dir)) return;
  const suites = readdirSync(dir)
    .filter(f => f.endsWith('.json'))
    .map(f => JSON.parse(readFileSync(join(dir, f), 'utf8')));
  const sum = key => suites.reduce((n, s) => n + s[key], 0);
  const hits = suites.reduce((n, s) => n + s.leaks.length, 0);
  console.log(
    `\nsecret scan, whole faults run: ${sum('steps')} steps, ${sum('bytes')} bytes scanned, ${hits} hits (${suites.map(s => s.suite).join(', ')})`
  );
  rmSync(dir, {recursive: true, force: true});
}
