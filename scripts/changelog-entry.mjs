#!/usr/bin/env node
// Prints the body of one release's entry in CHANGELOG.md (Keep a Changelog: "## [X.Y.Z] - YYYY-MM-DD"),
// for the release notes. Usage: node scripts/changelog-entry.mjs X.Y.Z [CHANGELOG.md]
// Exit 1, naming the fix, when the entry is missing or empty.
import {readFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';

/** The text under `## [version]` up to the next `## ` heading or link definitions, trimmed; undefined if absent. */
export function changelogEntry(text, version) {
  const lines = text.split(/\r?\n/);
  const heading = new RegExp(`^## \\[${version.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\](\\s|$)`);
  const start = lines.findIndex(l => heading.test(l));
  if (start < 0) return undefined;
  const rest = lines.slice(start + 1);
  const end = rest.findIndex(l => /^## /.test(l) || /^\[[^\]]+\]:\s/.test(l));
  return (end < 0 ? rest : rest.slice(0, end)).join('\n').trim();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [version, file = new URL('../CHANGELOG.md', import.meta.url)] = process.argv.slice(2);
  if (!version || !/^\d+\.\d+\.\d+/.test(version)) {
    process.stderr.write('usage: node scripts/changelog-entry.mjs X.Y.Z [CHANGELOG.md]\n');
    process.exit(2);
  }
  const entry = changelogEntry(readFileSync(file, 'utf8'), version);
  if (!entry) {
    process.stderr.write(
      `CHANGELOG.md has no entry "## [${version}] - YYYY-MM-DD" with text under it: add one (move the Unreleased items there) and tag again\n`
    );
    process.exit(1);
  }
  process.stdout.write(`${entry}\n`);
}
