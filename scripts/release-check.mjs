#!/usr/bin/env node
// The release workflow's checks of a pushed tag, made before anything is built, released or published:
// - the tag is vX.Y.Z and that is the version in package.json;
// - CHANGELOG.md has the release's dated entry, `## [X.Y.Z] - YYYY-MM-DD` (not "Unreleased");
// - the tag points at the commit the workflow runs for, and that commit is on main (main's tip or before it);
// - the tag is the newest release of its major: no other vX.*.* tag has a higher version, so the major tag vX,
//   which the release moves, only ever moves to a newer release (a fix for an older major, v1.4.1 after v2.0.0,
//   is still fine: it moves v1, not v2);
// - vX, when it exists, points at an ancestor of the commit: the major tag moves forward along main, never back or
//   sideways.
// The git repository must hold main's history and every tag (actions/checkout with fetch-depth: 0).
// Usage: node scripts/release-check.mjs --tag vX.Y.Z --commit <sha> [--main origin/main] [--dir .]
// Exit 0 when the tag may be released; 1 with each problem and what to do; 2 for a bad command line.
import {execFileSync} from 'node:child_process';
import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {parseArgs} from 'node:util';

const RELEASE_TAG = /^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;

/** [major, minor, patch] of a release tag vX.Y.Z, or undefined for any other name. */
export function releaseVersion(tag) {
  const m = RELEASE_TAG.exec(tag);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** Negative, zero or positive as version a is lower than, equal to or higher than b. */
export function compareVersions(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** Runs git in dir: its trimmed stdout, or {status} when it exits non-zero (stderr is kept for errors). */
export function gitIn(dir) {
  return (...args) => {
    try {
      return execFileSync('git', args, {cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']}).trim();
    } catch (e) {
      if (typeof e.status !== 'number') throw e;
      return {status: e.status, stderr: String(e.stderr ?? '').trim()};
    }
  };
}

/** The commit a revision names, or undefined when the repository has no such commit. */
function commitOf(git, rev) {
  const out = git('rev-parse', '--verify', '--quiet', `${rev}^{commit}`);
  return typeof out === 'string' && out !== '' ? out : undefined;
}

/** True when ancestor is commit or one of its ancestors. */
function isAncestor(git, ancestor, commit) {
  const out = git('merge-base', '--is-ancestor', ancestor, commit);
  if (typeof out === 'string') return true;
  if (out.status === 1) return false;
  throw new Error(`release-check: git merge-base --is-ancestor ${ancestor} ${commit} failed: ${out.stderr}`);
}

/** The `## [version]` heading of CHANGELOG.md's text, or undefined. */
function changelogHeading(text, version) {
  return text.split(/\r?\n/).find(l => l.startsWith(`## [${version}]`));
}

/**
 * Why the tag may not be released (none: []). Each problem says what to do.
 * @param {{tag: string, commit: string, main: string, packageVersion: string, changelog: string,
 *   git: (...args: string[]) => string | {status: number, stderr: string}}} opts
 */
export function releaseProblems({tag, commit, main, packageVersion, changelog, git}) {
  const version = releaseVersion(tag);
  if (!version) return [`tag ${tag} is not a release tag vX.Y.Z (digits only, no leading zeros)`];
  const problems = [];
  if (tag !== `v${packageVersion}`) {
    problems.push(
      `tag ${tag} is not the version in package.json (v${packageVersion}): set it with ` +
        `npm run version:set -- ${tag.slice(1)}, commit, and tag that commit`
    );
  }
  const heading = changelogHeading(changelog, tag.slice(1));
  if (!heading || !/^## \[[^\]]+\] - \d{4}-\d{2}-\d{2}\s*$/.test(heading)) {
    problems.push(
      `CHANGELOG.md has no dated entry "## [${tag.slice(1)}] - YYYY-MM-DD" (${heading ? `it says "${heading}"` : 'none'}): ` +
        'move the Unreleased items under it with the release date, commit, and tag that commit'
    );
  }

  const tagged = commitOf(git, `refs/tags/${tag}`);
  const head = commitOf(git, commit);
  if (!head) return [...problems, `commit ${commit} is not in this repository: check out with fetch-depth: 0`];
  if (tagged !== head) {
    problems.push(`tag ${tag} points at ${tagged ?? 'nothing here'}, not at ${head}, the commit this run is for`);
  }
  const mainTip = commitOf(git, main);
  if (!mainTip) {
    problems.push(`${main} is not in this repository: check out with fetch-depth: 0 so that main's history is here`);
  } else if (!isAncestor(git, head, mainTip)) {
    problems.push(
      `commit ${head} is not on main (${main} is ${mainTip}): release only what main holds; ` +
        `delete the tag (git push --delete origin ${tag}) and tag a commit of main`
    );
  }

  const listed = git('tag', '--list', `v${version[0]}.*`);
  if (typeof listed !== 'string') throw new Error(`release-check: git tag --list failed: ${listed.stderr}`);
  const newer = listed
    .split('\n')
    .filter(t => t !== tag && releaseVersion(t)?.[0] === version[0])
    .filter(t => compareVersions(releaseVersion(t), version) > 0)
    .sort((a, b) => compareVersions(releaseVersion(b), releaseVersion(a)));
  if (newer.length > 0) {
    problems.push(
      `tag ${tag} is older than ${newer.join(', ')}: the major tag v${version[0]} only moves to the newest release ` +
        `of its major; release ${tag.slice(1)} under a version above ${newer[0].slice(1)}`
    );
  }
  const major = `v${version[0]}`;
  const majorCommit = commitOf(git, `refs/tags/${major}`);
  if (majorCommit && !isAncestor(git, majorCommit, head)) {
    problems.push(
      `the major tag ${major} points at ${majorCommit}, which is not an ancestor of ${head}: it would move back or ` +
        `sideways; tag a commit of main that comes after ${majorCommit}`
    );
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let values;
  try {
    ({values} = parseArgs({
      args: process.argv.slice(2),
      options: {tag: {type: 'string'}, commit: {type: 'string'}, main: {type: 'string'}, dir: {type: 'string'}}
    }));
  } catch (e) {
    values = {error: e.message};
  }
  if (values.error || !values.tag || !values.commit) {
    process.stderr.write(
      `${values.error ? `${values.error}\n` : ''}usage: node scripts/release-check.mjs --tag vX.Y.Z --commit <sha> [--main origin/main] [--dir .]\n`
    );
    process.exit(2);
  }
  const dir = values.dir ?? process.cwd();
  const problems = releaseProblems({
    tag: values.tag,
    commit: values.commit,
    main: values.main ?? 'origin/main',
    packageVersion: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version,
    changelog: readFileSync(join(dir, 'CHANGELOG.md'), 'utf8'),
    git: gitIn(dir)
  });
  for (const p of problems) process.stderr.write(`::error::release-check: ${p}\n`);
  if (problems.length > 0) process.exit(1);
  process.stdout.write(`release-check: ${values.tag} (${values.commit}) may be released\n`);
}
